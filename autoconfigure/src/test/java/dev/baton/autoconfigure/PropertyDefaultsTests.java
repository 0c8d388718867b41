package dev.baton.autoconfigure;

import dev.baton.autoconfigure.lock.BatonLockProperties;
import dev.baton.autoconfigure.queue.BatonQueueProperties;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.redis.RedisDelayQueues;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The defaults the properties (and so the IDE metadata and the configuration guide) show are the
 * ones Baton runs with when nothing is set, with or without Spring Boot.
 */
class PropertyDefaultsTests {

	@Test
	void lockPropertiesDefaultToTheLockManagersDefaults() {
		BatonLockProperties properties = new BatonLockProperties();

		assertThat(properties.getKeyPrefix()).isEqualTo(RedisLockManager.Builder.DEFAULT_KEY_PREFIX);
		assertThat(properties.getLeaseTime()).isEqualTo(RedisLockManager.Builder.DEFAULT_LEASE_TIME);
		assertThat(properties.getCommandTimeout()).isEqualTo(RedisLockManager.Builder.DEFAULT_COMMAND_TIMEOUT);
		assertThat(properties.getMaxNameLength()).isEqualTo(RedisLockManager.Builder.DEFAULT_MAX_NAME_LENGTH);
		assertThat(properties.getMaxMetricGroups()).isEqualTo(RedisLockManager.Builder.DEFAULT_MAX_METRIC_GROUPS);
		assertThat(properties.getReplicaAcknowledgement().getReplicas()).isZero();
		assertThat(properties.getReplicaAcknowledgement().getTimeout())
			.isEqualTo(RedisLockManager.Builder.DEFAULT_REPLICA_TIMEOUT);
	}

	@Test
	void queuePropertiesDefaultToTheQueuesAndListenersDefaults() {
		BatonQueueProperties properties = new BatonQueueProperties();

		assertThat(properties.getKeyPrefix()).isEqualTo(RedisDelayQueues.DEFAULT_KEY_PREFIX);
		assertThat(properties.getCommandTimeout()).isEqualTo(RedisDelayQueues.DEFAULT_COMMAND_TIMEOUT);
		assertThat(properties.getVisibilityTimeout()).isEqualTo(RedisDelayQueues.DEFAULT_VISIBILITY_TIMEOUT);
		assertThat(properties.getMaxPayloadSize().toBytes()).isEqualTo(RedisDelayQueues.DEFAULT_MAX_PAYLOAD_SIZE);
		assertThat(properties.getStorageFormat()).isEqualTo(RedisDelayQueues.LATEST_STORAGE_FORMAT);
		// Each queue's listener settings default to ListenerSettings.DEFAULTS:
		// BatonQueueAutoConfigurationTests.unsetPropertiesAreTheDefaultsOfTheCore.
	}

}

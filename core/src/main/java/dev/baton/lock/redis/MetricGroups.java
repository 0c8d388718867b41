package dev.baton.lock.redis;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.baton.lock.LockManager;
import dev.baton.lock.LockRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The {@code lock} tag of a group, for meters and observations alike: the group itself while
 * there is room, else {@value #OTHER}, so that groups that carry ids by mistake cannot grow a
 * meter registry without bound.
 */
final class MetricGroups {

	static final String OTHER = "other";

	private static final Log logger = LogFactory.getLog(MetricGroups.class);

	private final Set<String> groups = ConcurrentHashMap.newKeySet();

	private final int maxGroups;

	/** Set once every place is taken: from then on unknown groups are tagged without locking. */
	private volatile boolean full;

	MetricGroups(int maxGroups) {
		this.maxGroups = maxGroups;
	}

	String tag(String group) {
		if (this.groups.contains(group)) {
			return group;
		}
		if (this.full) {
			return OTHER;
		}
		synchronized (this.groups) {
			if (this.groups.size() < this.maxGroups) {
				this.groups.add(group);
				return group;
			}
			this.full = true;
			if (this.groups.add(OTHER)) {
				logger.warn("More than " + this.maxGroups + " lock metric groups: further groups, such as '" + group
						+ "', are tagged lock=" + OTHER + ". Give locks whose names carry ids a group of their own "
						+ "(LockRequest.group, LockManager.getLock(name, group)) or raise baton.lock.max-metric-groups.");
			}
			return OTHER;
		}
	}

}

package dev.baton.queue.annotation;

import java.time.Duration;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.baton.queue.TaskContext;
import dev.baton.queue.listener.DelayedTaskEndpoint;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.listener.ListenerSettings;
import dev.baton.queue.listener.Parcel;
import dev.baton.queue.redis.RedisDelayQueues;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class DelayedTaskAnnotationBeanPostProcessorTests {

	@Test
	void describesHandlerWithResolvedAttributes() {
		DelayedTaskEndpoint endpoint = endpoint(new TunedHandler());

		assertThat(endpoint.queue()).isEqualTo("orders");
		assertThat(endpoint.payloadType()).isEqualTo(Parcel.class);
		assertThat(endpoint.concurrency()).isEqualTo(8);
		assertThat(endpoint.maxAttempts()).isEqualTo(7);
		assertThat(endpoint.visibilityTimeout()).isEqualTo(Duration.ofSeconds(45));
		assertThat(endpoint.backoffInitial()).isEqualTo(Duration.ofMillis(500));
		assertThat(endpoint.backoffMultiplier()).isEqualTo(3.0);
		assertThat(endpoint.backoffMax()).isEqualTo(Duration.ofMinutes(2));
		assertThat(endpoint.deadLetter()).isFalse();
		ListenerSettings settings = endpoint.settings(ListenerSettings.DEFAULTS);
		assertThat(settings.maxAttempts()).isEqualTo(7);
		assertThat(settings.backoff().delayAfter(1)).isEqualTo(Duration.ofMillis(500));
		assertThat(settings.backoff().delayAfter(2)).isEqualTo(Duration.ofMillis(1500));
		assertThat(settings.backoff().delayAfter(10)).isEqualTo(Duration.ofMinutes(2));
	}

	@Test
	void leavesEmptyAttributesToQueueSettings() {
		DelayedTaskEndpoint endpoint = endpoint(new PlainHandler());

		assertThat(endpoint.concurrency()).isEqualTo(1);
		assertThat(endpoint.maxAttempts()).isNull();
		assertThat(endpoint.visibilityTimeout()).isNull();
		assertThat(endpoint.settings(ListenerSettings.DEFAULTS)).isEqualTo(ListenerSettings.DEFAULTS);
	}

	@Test
	void acceptsPrimitivePayloadAsItsWrapper() {
		assertThat(endpoint(new PrimitiveHandler()).payloadType()).isEqualTo(Long.class);
	}

	@Test
	void acceptsInterfacePayloadWithTypeInformation() {
		assertThat(endpoint(new TypedInterfaceHandler()).payloadType()).isEqualTo(Shape.class);
	}

	@Test
	void rejectsMethodWithoutPayload() {
		assertThatIllegalStateException().isThrownBy(() -> endpoint(new ContextOnlyHandler()))
			.withMessageContaining(ContextOnlyHandler.class.getName() + ".handle")
			.withMessageContaining("exactly one payload parameter");
	}

	@Test
	void rejectsMethodWithTwoPayloads() {
		assertThatIllegalStateException().isThrownBy(() -> endpoint(new TwoPayloadHandler()))
			.withMessageContaining(TwoPayloadHandler.class.getName() + ".handle")
			.withMessageContaining("[Parcel, String]");
	}

	@Test
	void rejectsInterfacePayloadWithoutTypeInformation() {
		assertThatIllegalStateException().isThrownBy(() -> endpoint(new UntypedInterfaceHandler()))
			.withMessageContaining(UntypedInterfaceHandler.class.getName() + ".handle")
			.withMessageContaining(Runnable.class.getName())
			.withMessageContaining("@JsonTypeInfo");
	}

	@Test
	void rejectsBadConcurrency() {
		assertThatIllegalStateException().isThrownBy(() -> endpoint(new BadConcurrencyHandler()))
			.withMessageContaining(BadConcurrencyHandler.class.getName() + ".handle")
			.withMessageContaining("concurrency '8-2'");
	}

	@Test
	void rejectsBadVisibilityTimeout() {
		assertThatIllegalStateException().isThrownBy(() -> endpoint(new BadVisibilityHandler()))
			.withMessageContaining(BadVisibilityHandler.class.getName() + ".handle")
			.withMessageContaining("visibilityTimeout '30 seconds'")
			.withMessageContaining("is not a duration");
	}

	@Test
	void rejectsAFinalHandlerMethodOfAProxiedBean() {
		ProxyFactory factory = new ProxyFactory(new FinalHandler());
		factory.setProxyTargetClass(true);
		Object proxy = factory.getProxy();
		DelayedTaskAnnotationBeanPostProcessor postProcessor = new DelayedTaskAnnotationBeanPostProcessor();
		postProcessor.setBeanFactory(new DefaultListableBeanFactory());
		var method = org.springframework.util.ReflectionUtils.findMethod(FinalHandler.class, "handle", String.class);

		assertThatIllegalStateException()
			.isThrownBy(() -> postProcessor.endpoint(proxy, method, method.getAnnotation(DelayedTask.class)))
			.withMessageContaining(FinalHandler.class.getName() + ".handle")
			.withMessageContaining("final on a proxied bean")
			.withMessageContaining("non-final");
		assertThat(postProcessor.endpoint(new FinalHandler(), method, method.getAnnotation(DelayedTask.class)))
			.as("without a proxy a final method is fine")
			.isNotNull();
	}

	static class FinalHandler {

		@DelayedTask(queue = "final")
		public final void handle(String text) {
		}

	}

	@Test
	void rejectsAReturnTypeItCannotWaitFor() {
		assertThatIllegalStateException().isThrownBy(() -> endpoint(new StreamReturningHandler()))
			.withMessageContaining(StreamReturningHandler.class.getName() + ".handle")
			.withMessageContaining("returns java.util.stream.Stream")
			.withMessageContaining("cannot wait for");
	}

	static class StreamReturningHandler {

		@DelayedTask(queue = "streams")
		java.util.stream.Stream<String> handle(String text) {
			return java.util.stream.Stream.of(text);
		}

	}

	@Test
	void rejectsBadMaxAttempts() {
		assertThatIllegalStateException().isThrownBy(() -> endpoint(new BadAttemptsHandler()))
			.withMessageContaining(BadAttemptsHandler.class.getName() + ".handle")
			.withMessageContaining("maxAttempts '0'");
	}

	@Test
	void rejectsBackoffMaxBelowInitial() {
		DelayedTaskEndpoint endpoint = endpoint(new BadBackoffHandler());

		assertThatIllegalStateException().isThrownBy(() -> endpoint.settings(ListenerSettings.DEFAULTS))
			.withMessageContaining(BadBackoffHandler.class.getName() + ".handle")
			.withMessageContaining("must not be less than initial");
	}

	@Test
	void rejectsSecondHandlerForOneQueue() {
		try (RedisDelayQueues queues = RedisDelayQueues
			.builder(new LettuceConnectionFactory(), tools.jackson.databind.json.JsonMapper.builder().build())
			.build()) {
			DelayedTaskListenerRegistry registry = DelayedTaskListenerRegistry.builder(queues).build();
			registry.register(endpoint(new PlainHandler()));

			assertThatIllegalStateException().isThrownBy(() -> registry.register(endpoint(new OtherPlainHandler())))
				.withMessageContaining("Queue 'plain' has two @DelayedTask handlers")
				.withMessageContaining(PlainHandler.class.getName() + ".handle")
				.withMessageContaining(OtherPlainHandler.class.getName() + ".process");
		}
	}

	private static DelayedTaskEndpoint endpoint(Object handler) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.addEmbeddedValueResolver((text) -> text.replace("${orders.concurrency}", "2-8"));
		DelayedTaskAnnotationBeanPostProcessor postProcessor = new DelayedTaskAnnotationBeanPostProcessor();
		postProcessor.setBeanFactory(beanFactory);
		var method = java.util.Arrays.stream(handler.getClass().getDeclaredMethods())
			.filter((candidate) -> candidate.isAnnotationPresent(DelayedTask.class))
			.findFirst()
			.orElseThrow();
		return postProcessor.endpoint(handler, method, method.getAnnotation(DelayedTask.class));
	}

	static class TunedHandler {

		@DelayedTask(queue = "orders", concurrency = "${orders.concurrency}", maxAttempts = "7",
				visibilityTimeout = "PT45S", backoff = @Backoff(initial = "500ms", multiplier = "3", max = "2m"),
				deadLetter = false)
		void handle(TaskContext context, Parcel parcel) {
		}

	}

	static class PlainHandler {

		@DelayedTask(queue = "plain")
		void handle(Parcel parcel) {
		}

	}

	static class OtherPlainHandler {

		@DelayedTask(queue = "plain")
		void process(Parcel parcel) {
		}

	}

	static class PrimitiveHandler {

		@DelayedTask(queue = "numbers")
		void handle(long number) {
		}

	}

	@JsonTypeInfo(use = JsonTypeInfo.Id.CLASS)
	interface Shape {

	}

	static class TypedInterfaceHandler {

		@DelayedTask(queue = "shapes")
		void handle(Shape shape) {
		}

	}

	static class ContextOnlyHandler {

		@DelayedTask(queue = "q")
		void handle(TaskContext context) {
		}

	}

	static class TwoPayloadHandler {

		@DelayedTask(queue = "q")
		void handle(Parcel parcel, String extra) {
		}

	}

	static class UntypedInterfaceHandler {

		@DelayedTask(queue = "q")
		void handle(Runnable task) {
		}

	}

	static class BadConcurrencyHandler {

		@DelayedTask(queue = "q", concurrency = "8-2")
		void handle(Parcel parcel) {
		}

	}

	static class BadVisibilityHandler {

		@DelayedTask(queue = "q", visibilityTimeout = "30 seconds")
		void handle(Parcel parcel) {
		}

	}

	static class BadAttemptsHandler {

		@DelayedTask(queue = "q", maxAttempts = "0")
		void handle(Parcel parcel) {
		}

	}

	static class BadBackoffHandler {

		@DelayedTask(queue = "q", backoff = @Backoff(initial = "10s", max = "1s"))
		void handle(Parcel parcel) {
		}

	}

}

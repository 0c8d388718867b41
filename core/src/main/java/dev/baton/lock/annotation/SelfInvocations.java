package dev.baton.lock.annotation;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;

/**
 * Finds the calls a class makes to its own annotated methods, by reading its bytecode (with the
 * ASM that Spring ships): such a call does not go through the bean's proxy, so the annotation does
 * nothing for it. A call on another instance of the same class is found too; it is as rare in a
 * Spring bean as it is unproxied when made on a non-bean instance.
 */
final class SelfInvocations {

	private SelfInvocations() {
	}

	/**
	 * The self-invocations of the given methods, as "caller -> callee" descriptions.
	 * @param userClass the class as written (not a proxy or CGLIB subclass)
	 * @param annotated the methods whose self-invocations to find, declared by that class
	 * @param describe how to name a method in the result
	 * @return each call once, in the order found; empty when the bytecode cannot be read
	 */
	static List<String> of(Class<?> userClass, Set<Method> annotated, Function<Method, String> describe) {
		Map<String, Method> byNameAndDescriptor = annotated.stream()
			.collect(Collectors.toMap((method) -> method.getName() + Type.getMethodDescriptor(method), (method) -> method,
					(first, second) -> first));
		String owner = Type.getInternalName(userClass);
		Set<String> calls = new LinkedHashSet<>();
		ClassReader reader = reader(userClass);
		if (reader == null) {
			return List.of();
		}
		reader.accept(new ClassVisitor(SpringAsmInfo.ASM_VERSION) {

			@Override
			public MethodVisitor visitMethod(int access, String name, String descriptor, @Nullable String signature,
					String @Nullable [] exceptions) {
				if ((access & Opcodes.ACC_STATIC) != 0 && !name.startsWith("lambda$")) {
					return null;
				}
				String caller = callerName(name);
				return new MethodVisitor(SpringAsmInfo.ASM_VERSION) {

					@Override
					public void visitMethodInsn(int opcode, String callOwner, String callName, String callDescriptor,
							boolean isInterface) {
						Method callee = owner.equals(callOwner) ? byNameAndDescriptor.get(callName + callDescriptor) : null;
						if (callee != null && !caller.equals(callName)) {
							calls.add(userClass.getSimpleName() + "." + caller + "(...) -> " + describe.apply(callee));
						}
					}

				};
			}

		}, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
		return new ArrayList<>(calls);
	}

	/** The method a lambda's body was written in: {@code lambda$settleAll$0} was written in {@code settleAll}. */
	private static String callerName(String name) {
		if (name.startsWith("lambda$")) {
			int end = name.indexOf('$', "lambda$".length());
			return (end > 0) ? name.substring("lambda$".length(), end) : name;
		}
		return name;
	}

	private static @Nullable ClassReader reader(Class<?> type) {
		String resource = type.getName().replace('.', '/') + ".class";
		ClassLoader loader = (type.getClassLoader() != null) ? type.getClassLoader() : ClassLoader.getSystemClassLoader();
		try (InputStream bytes = loader.getResourceAsStream(resource)) {
			return (bytes != null) ? new ClassReader(bytes) : null;
		}
		catch (IOException | IllegalArgumentException ex) {
			// Unreadable or too new for this ASM: no check, as before.
			return null;
		}
	}

}

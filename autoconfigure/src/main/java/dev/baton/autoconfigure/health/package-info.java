/**
 * The {@code baton} health contributor of Spring Boot's actuator.
 */
@NullMarked
package dev.baton.autoconfigure.health;

import org.jspecify.annotations.NullMarked;

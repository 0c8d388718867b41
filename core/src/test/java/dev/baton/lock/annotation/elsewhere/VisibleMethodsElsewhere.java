package dev.baton.lock.annotation.elsewhere;

import dev.baton.lock.annotation.VisibleMethods;

/** A bean in another package than the class that declares its package-private locked method. */
public class VisibleMethodsElsewhere extends VisibleMethods {

}

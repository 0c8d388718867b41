package dev.baton.sample.flashsale;

/** No unit of the product is left. */
public class SoldOutException extends RuntimeException {

	public SoldOutException(String sku) {
		super(sku + " is sold out");
	}

}

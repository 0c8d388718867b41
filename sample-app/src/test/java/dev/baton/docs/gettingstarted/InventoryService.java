package dev.baton.docs.gettingstarted;

import dev.baton.lock.annotation.DistributedLock;
import org.springframework.stereotype.Service;

/** docs/getting-started.md, step 3, as the page shows it. */
@Service
public class InventoryService {

	@DistributedLock(key = "#sku", waitTime = "2s")
	public void reserve(String sku, int quantity) {
		// one reservation per SKU at a time, across every instance
	}
}

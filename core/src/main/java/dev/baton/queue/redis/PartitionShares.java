package dev.baton.queue.redis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * How many of the first {@code max} entries of all partitions (by score) each partition holds,
 * from the scores of each partition's first {@code max}: so that a read across partitions reads
 * {@code max} entries in all, not {@code max} from each.
 */
final class PartitionShares {

	private PartitionShares() {
	}

	/**
	 * The share of each partition.
	 * @param scores per partition, the scores of its first {@code max} entries, as Redis returns them
	 * @param newestFirst whether the first entries are those of the highest scores
	 */
	static int[] of(List<List<Object>> scores, int max, boolean newestFirst) {
		List<Map.Entry<Double, Integer>> heads = new ArrayList<>();
		for (int partition = 0; partition < scores.size(); partition++) {
			for (Object score : scores.get(partition)) {
				heads.add(Map.entry(Double.parseDouble((String) score), partition));
			}
		}
		Comparator<Map.Entry<Double, Integer>> order = Map.Entry.comparingByKey();
		heads.sort(newestFirst ? order.reversed() : order);
		int[] shares = new int[scores.size()];
		heads.subList(0, Math.min(max, heads.size())).forEach((head) -> shares[head.getValue()]++);
		return shares;
	}

}

package dev.baton.queue.redis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * How many of the first {@code max} entries of all partitions (by score) each partition holds,
 * from the scores of each partition's first entries: so that a read across partitions reads
 * {@code max} entries in all, not {@code max} from each.
 */
final class PartitionShares {

	private PartitionShares() {
	}

	/**
	 * How many scores to ask each partition for at first: twice its share of {@code max} when the
	 * entries spread evenly, which usually tells the shares without asking for {@code max} from each.
	 */
	static int firstAsk(int max, int partitions) {
		return (int) Math.min(max, 2L * ((max + partitions - 1) / partitions));
	}

	/**
	 * The share of each partition, or {@code null} if the scores do not tell: a partition that
	 * returned all it was asked for may hold more entries among the first {@code max} of all
	 * (never when {@code asked} is {@code max}).
	 * @param scores per partition, the scores of its first {@code asked} entries (fewer if it has
	 * no more), as Redis returns them
	 * @param newestFirst whether the first entries are those of the highest scores
	 */
	static int @Nullable [] of(List<List<Object>> scores, int asked, int max, boolean newestFirst) {
		Comparator<Double> order = newestFirst ? Comparator.reverseOrder() : Comparator.naturalOrder();
		List<Map.Entry<Double, Integer>> heads = new ArrayList<>();
		// No entry that a partition did not return comes before the earliest of their last scores
		Double bound = null;
		for (int partition = 0; partition < scores.size(); partition++) {
			List<Object> returned = scores.get(partition);
			for (Object score : returned) {
				heads.add(Map.entry(Double.parseDouble((String) score), partition));
			}
			if (asked < max && returned.size() == asked) {
				double last = heads.get(heads.size() - 1).getKey();
				bound = (bound == null || order.compare(last, bound) < 0) ? last : bound;
			}
		}
		heads.sort(Map.Entry.comparingByKey(order));
		int taken = Math.min(max, heads.size());
		if (bound != null && (taken < max || order.compare(heads.get(taken - 1).getKey(), bound) > 0)) {
			return null;
		}
		int[] shares = new int[scores.size()];
		heads.subList(0, taken).forEach((head) -> shares[head.getValue()]++);
		return shares;
	}

}

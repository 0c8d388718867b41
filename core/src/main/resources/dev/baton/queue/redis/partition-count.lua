-- Reads the partition count recorded for a queue in its first partition's slot and, when none is
-- recorded and that partition holds no task (tasks placed in one partition are all there),
-- records the caller's: the first instance of a new queue records its count, later ones must use
-- it until it is changed explicitly (see PartitionLayout).
-- KEYS[1] the recorded count (absent: one partition; negative: being changed from its opposite),
-- KEYS[2] due (zset), KEYS[3] in flight (zset), KEYS[4] dead (zset) of the first partition
-- ARGV[1] the caller's count
-- Returns: {the count recorded now, the tasks of the first partition if it refused to record}
local recorded = redis.call('GET', KEYS[1])
if recorded then
	return {tonumber(recorded), 0}
end
local tasks = redis.call('ZCARD', KEYS[2]) + redis.call('ZCARD', KEYS[3]) + redis.call('ZCARD', KEYS[4])
if tasks > 0 or ARGV[1] == '1' then
	return {1, tasks}
end
redis.call('SET', KEYS[1], ARGV[1])
return {tonumber(ARGV[1]), 0}

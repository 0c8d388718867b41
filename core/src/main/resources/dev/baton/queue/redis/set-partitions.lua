-- Records a queue's partition count in the slot of one of its partitions, where the scripts that
-- place by id check it (see misplaced in common.lua).
-- KEYS[1] the recorded count of one partition
-- ARGV[1] the count ('1' deletes the record: absent means one partition),
-- ARGV[2] 'always', or 'if-absent' to keep a count already recorded
-- Returns: {1 if written, else 0}
if ARGV[2] == 'if-absent' and redis.call('EXISTS', KEYS[1]) == 1 then
	return {0}
end
if ARGV[1] == '1' then
	redis.call('DEL', KEYS[1])
else
	redis.call('SET', KEYS[1], ARGV[1])
end
return {1}

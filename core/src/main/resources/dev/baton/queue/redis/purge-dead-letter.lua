-- Deletes a dead letter.
-- KEYS[1] dead (zset), KEYS[2] dead payloads (hash), KEYS[3] dead info (hash), KEYS[4] the partition
-- count recorded in this partition's slot (see misplaced in common.lua)
-- ARGV[1] id, ARGV[2] the partition count the id was placed with
-- Returns: 1 if a dead letter was deleted, 0 if unknown
local refused = misplaced()
if refused then
	return refused
end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return redis.call('ZREM', KEYS[1], ARGV[1])

-- Reads a scheduled or in-flight task.
-- KEYS[1] tasks (hash), KEYS[2] meta (hash), KEYS[3] in flight (zset)
-- ARGV[1] id
-- Returns: {payload, meta "scheduledAt|dueAt|attempt|token|sequence", '1' if in flight else '0'},
--   or an empty array if unknown
local payload = redis.call('HGET', KEYS[1], ARGV[1])
local meta = redis.call('HGET', KEYS[2], ARGV[1])
if not payload or not meta then
	return {}
end
return {payload, meta, redis.call('ZSCORE', KEYS[3], ARGV[1]) and '1' or '0'}

-- Reads a scheduled or in-flight task.
-- KEYS[1] tasks (hash), KEYS[2] meta (hash), KEYS[3] in flight (zset), KEYS[4] the partition count
-- recorded in this partition's slot (see misplaced in common.lua)
-- ARGV[1] id, ARGV[2] the partition count the id was placed with
-- Returns: {payload, meta "scheduledAt|dueAt|attempt|token|sequence", '1' if in flight else '0'},
--   or an empty array if unknown
local refused = misplaced()
if refused then
	return refused
end
local metas, payloads = readStored(TASK, KEYS[1], KEYS[2], {ARGV[1]})
local payload, meta = payloads[1], metas[1]
if meta == 'unknown' then
	return newerFormat(KEYS[1], ARGV[1])
elseif not payload or not meta then
	return {}
end
return {payload, meta, redis.call('ZSCORE', KEYS[3], ARGV[1]) and '1' or '0'}

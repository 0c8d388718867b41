-- Deletes a task that is waiting in the due set (not in flight).
-- KEYS[1] due (zset), KEYS[2] tasks (hash), KEYS[3] meta (hash), KEYS[4] this call's remembered
-- reply (see rememberedReply in common.lua), KEYS[5] the partition count recorded in this
-- partition's slot (see misplaced in common.lua)
-- ARGV[1] id, ARGV[2] how long the reply is remembered, ms, ARGV[3] the partition count the id was
-- placed with
-- Returns: the task's meta if it was waiting and is deleted (its lock, if any, is released next),
-- 0 otherwise
local refused = misplaced()
if refused then
	return refused
end
local remembered = rememberedReply(KEYS[4])
if remembered then
	return remembered
end
local metas = readStored(TASK, KEYS[2], KEYS[3], {ARGV[1]})
local meta = metas[1]
if not meta then
	return 0
elseif meta == 'unknown' then
	return newerFormat(KEYS[2], ARGV[1])
end
local _, _, _, _, sequence = parseMeta(meta)
local member = sequence .. ARGV[1]
if redis.call('ZREM', KEYS[1], member) == 0 then
	return 0
end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
rememberReply(KEYS[4], meta, ARGV[2])
return meta

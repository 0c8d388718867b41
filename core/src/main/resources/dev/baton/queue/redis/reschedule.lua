-- Moves a task that is waiting in the due set (not in flight) to a new due time, after the
-- tasks already due at that time, and publishes on the wake channel when it now falls due
-- before every waiting task.
-- KEYS[1] due (zset), KEYS[2] tasks (hash), KEYS[3] meta (hash), KEYS[4] sequence (string counter),
-- KEYS[5] wake channel, KEYS[6] the partition count recorded in this partition's slot (see misplaced
-- in common.lua)
-- ARGV[1] id, ARGV[2] delay in milliseconds from now (Redis time), ARGV[3] the partition count
-- the id was placed with
-- Returns: the task's new meta if it was waiting and is moved (its lock, if any, is kept longer
-- next), 0 otherwise
redis.replicate_commands()
local refused = misplaced()
if refused then
	return refused
end
local id = ARGV[1]
local metas, payloads, formats = readStored(TASK, KEYS[2], KEYS[3], {id})
local meta = metas[1]
if not meta then
	return 0
elseif meta == 'unknown' then
	return newerFormat(KEYS[2], id)
end
local scheduled, _, attempt, token, member, trace = parseMeta(meta)
if not redis.call('ZSCORE', KEYS[1], member .. id) then
	return 0
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local due = now + tonumber(ARGV[2])
-- The earliest other waiting task: the first, or the second when the first is this one.
local head = redis.call('ZRANGE', KEYS[1], 0, 1, 'WITHSCORES')
local earliest = head[2]
if head[1] == member .. id then
	earliest = head[4]
end
if earliest == nil or due < tonumber(earliest) then
	redis.call('PUBLISH', KEYS[5], string.format('due:%.0f', due))
end
redis.call('ZREM', KEYS[1], member .. id)
member = string.format('%016.0f', reserveSequence(KEYS[4], 1, time) + 1)
meta = formatMeta(scheduled, due, attempt, token, member, trace)
local writes = newWrites(TASK, KEYS[2], KEYS[3])
addWrite(writes, id, meta, payloads[1], formats[1])
flushWrites(writes)
redis.call('ZADD', KEYS[1], string.format('%.0f', due), member .. id)
return meta

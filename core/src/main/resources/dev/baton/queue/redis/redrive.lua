-- Moves a dead letter back to the queue, due now, with its attempts reset. Refused while a live
-- task has the same id.
-- KEYS[1] due (zset), KEYS[2] tasks (hash), KEYS[3] meta (hash), KEYS[4] sequence (string
-- counter), KEYS[5] wake channel, KEYS[6] dead (zset), KEYS[7] dead payloads (hash),
-- KEYS[8] dead info (hash), KEYS[9] the partition count recorded in this partition's slot (see
-- misplaced in common.lua)
-- ARGV[1] id, ARGV[2] the partition count the id was placed with
-- Returns: 1 if the dead letter is back on the queue, 0 if unknown or its id is taken
redis.replicate_commands()
local refused = misplaced()
if refused then
	return refused
end
local id = ARGV[1]
local infos, payloads, formats = readStored(DEAD_LETTER, KEYS[7], KEYS[8], {id})
if not infos[1] or redis.call('HEXISTS', KEYS[2], id) == 1 then
	return 0
elseif infos[1] == 'unknown' then
	return newerFormat(KEYS[7], id)
end
local scheduled = string.match(infos[1], '^%d+|(%d+)|')
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if head[2] == nil or now < tonumber(head[2]) then
	redis.call('PUBLISH', KEYS[5], string.format('due:%.0f', now))
end
local member = string.format('%016.0f', reserveSequence(KEYS[4], 1, time) + 1)
-- The task keeps the dead letter's format, which every instance reads.
local writes = newWrites(TASK, KEYS[2], KEYS[3])
addWrite(writes, id, formatMeta(scheduled, now, 0, 0, member, ''), payloads[1], formats[1])
flushWrites(writes)
redis.call('ZADD', KEYS[1], string.format('%.0f', now), member .. id)
redis.call('ZREM', KEYS[6], id)
redis.call('HDEL', KEYS[7], id)
redis.call('HDEL', KEYS[8], id)
return 1

-- Counts a queue's tasks by state at one instant of Redis time.
-- KEYS[1] due (zset), KEYS[2] in flight (zset), KEYS[3] dead (zset)
-- Returns: {scheduled (not due), due, in flight, dead, due time of the oldest due task in epoch
--   milliseconds or -1 if none is due}
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local due = redis.call('ZCOUNT', KEYS[1], '-inf', now)
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local oldest = -1
if due > 0 then
	oldest = tonumber(head[2])
end
return {redis.call('ZCARD', KEYS[1]) - due, due, redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]),
	string.format('%.0f', oldest)}

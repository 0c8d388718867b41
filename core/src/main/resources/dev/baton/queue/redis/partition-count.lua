-- Reads the partition count that a queue's tasks are placed with and, when ARGV[1] is the count
-- read before, records a new one: of two instances that found the queue empty under one count,
-- only the first records its own.
-- KEYS[1] partition count (absent: one partition)
-- ARGV[1] '' to only read, or the count read before; ARGV[2] the count to record
-- Returns: {the count recorded when called}
local recorded = redis.call('GET', KEYS[1]) or '1'
if ARGV[1] == recorded then
	if ARGV[2] == '1' then
		redis.call('DEL', KEYS[1])
	else
		redis.call('SET', KEYS[1], ARGV[2])
	end
end
return {tonumber(recorded)}

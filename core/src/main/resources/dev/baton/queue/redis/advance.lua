-- Moves every waiting task's due time earlier by ARGV[1] milliseconds, as if the queue's clock had
-- moved forward (for tests: a task due in 30 minutes runs now). Tasks keep their order; in-flight
-- tasks are left alone. Publishes on the wake channel so that consumers claim at once.
-- Cost: O(N log N) for the N waiting tasks; meant for test data, not for production queues.
-- KEYS[1] due (zset), KEYS[2] tasks (hash), KEYS[3] meta (hash), KEYS[4] wake channel
-- ARGV[1] milliseconds to move the due times by, not negative, or 'all' for as far as it takes to
--   make the last waiting task due
-- Returns: {number of waiting tasks that are due now}
redis.replicate_commands()
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local waiting = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local by = tonumber(ARGV[1])
if ARGV[1] == 'all' then
	by = math.max(0, (tonumber(waiting[#waiting]) or now) - now)
end
local ids = {}
for i = 1, #waiting, 2 do
	ids[#ids + 1] = string.sub(waiting[i], 17)
end
local oldMetas, payloads, formats = readStored(TASK, KEYS[2], KEYS[3], ids)
local newer = firstNewer(ids, oldMetas)
if newer then
	return newerFormat(KEYS[2], ids[newer])
end
local scores = {}
local writes = newWrites(TASK, KEYS[2], KEYS[3])
for n, id in ipairs(ids) do
	local member = waiting[2 * n - 1]
	local due = string.format('%.0f', math.max(0, tonumber(waiting[2 * n]) - by))
	local meta = oldMetas[n]
	if meta then
		local scheduled, _, attempt, token, sequence, trace = parseMeta(meta)
		addWrite(writes, id, formatMeta(scheduled, due, attempt, token, sequence, trace), payloads[n], formats[n])
	end
	scores[#scores + 1] = due
	scores[#scores + 1] = member
end
if #scores > 0 then
	redis.call('PUBLISH', KEYS[4], string.format('due:%.0f', now))
	callInSlices('ZADD', KEYS[1], scores)
	flushWrites(writes)
end
return {redis.call('ZCOUNT', KEYS[1], '-inf', now)}

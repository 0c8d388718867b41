-- Settles or extends in-flight deliveries. A delivery counts only while its task is in flight
-- with the same token; stale deliveries are skipped.
-- KEYS[1] due (zset), KEYS[2] tasks (hash), KEYS[3] meta (hash), KEYS[4] in flight (zset),
-- KEYS[5] sequence (string counter, see reserveSequence), KEYS[6] wake channel, KEYS[7] dead (zset id -> failedAt),
-- KEYS[8] dead payloads (hash), KEYS[9] dead info (hash id -> "attempts|scheduledAt|reason")
-- ARGV[1] action: 'ack' (delete), 'retry' (due again after ARGV[2] ms, attempt counted),
--   'handback' (due again at its original due time, attempt not counted), 'dead' (to the dead
--   letters, ARGV[2] the reason; claim.lua applies the retention), 'extend' (visibility deadline
--   at least now + ARGV[2] ms: a later deadline, such as a handler's own longer extension, is kept)
-- ARGV[3..] pairs: id, token
-- Returns: one integer per delivery, 1 if it was current and is done, 0 if stale
-- Cost: one command per delivery (its removal from the in-flight set, which also tells whether it
-- was in flight) plus a few per call, so that a batch of acknowledgements stays cheap.
redis.replicate_commands()
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local action = ARGV[1]
local argument = ARGV[2]
local requeues = action == 'retry' or action == 'handback'
local ids = {}
for i = 3, #ARGV, 2 do
	ids[#ids + 1] = ARGV[i]
end
local metas, payloads, formats = readStored(TASK, KEYS[2], KEYS[3], ids)
local newer = firstNewer(ids, metas)
if newer then
	return newerFormat(KEYS[2], ids[newer])
end
if requeues then
	-- The wake-up goes out before anything is written, if a delivery whose token matches falls due
	-- first: one that turns out stale (no longer in flight) only wakes a consumer for nothing.
	local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
	local earliest = head[2] and tonumber(head[2])
	for n, meta in ipairs(metas) do
		local _, due, _, token = parseMeta(meta or '')
		if token == ARGV[n * 2 + 2] then
			local requeuedAt = (action == 'retry') and now + tonumber(argument) or tonumber(due)
			if earliest == nil or requeuedAt < earliest then
				redis.call('PUBLISH', KEYS[6], string.format('due:%.0f', requeuedAt))
				break
			end
		end
	end
end
local sequence
if action == 'retry' then
	-- One number per delivery; stale ones leave gaps
	sequence = reserveSequence(KEYS[5], (#ARGV - 2) / 2, time)
end
local deleted = {}
local results = {}
local writes = newWrites(TASK, KEYS[2], KEYS[3])
local deadWrites = newWrites(DEAD_LETTER, KEYS[8], KEYS[9])
for n, id in ipairs(ids) do
	local scheduled, due, attempt, token, member, trace
	if metas[n] then
		scheduled, due, attempt, token, member, trace = parseMeta(metas[n])
	end
	local current = token == ARGV[n * 2 + 2]
	if current and action == 'extend' then
		local deadline = redis.call('ZSCORE', KEYS[4], id)
		current = deadline ~= false
		if current and now + tonumber(argument) > tonumber(deadline) then
			redis.call('ZADD', KEYS[4], string.format('%.0f', now + tonumber(argument)), id)
		end
	elseif current then
		current = redis.call('ZREM', KEYS[4], id) == 1
	end
	if current and (action == 'ack' or action == 'dead') then
		if action == 'dead' then
			redis.call('ZADD', KEYS[7], string.format('%.0f', now), id)
			addWrite(deadWrites, id, attempt .. '|' .. scheduled .. '|' .. argument, payloads[n], formats[n])
		end
		deleted[#deleted + 1] = id
	elseif current and requeues then
		if action == 'retry' then
			due = now + tonumber(argument)
			sequence = sequence + 1
			member = string.format('%016.0f', sequence)
		else
			due = tonumber(due)
			attempt = tonumber(attempt) - 1
		end
		addWrite(writes, id, formatMeta(scheduled, due, attempt, token, member, trace), payloads[n], formats[n])
		redis.call('ZADD', KEYS[1], string.format('%.0f', due), member .. id)
	end
	results[n] = current and 1 or 0
end
flushWrites(writes)
flushWrites(deadWrites)
if #deleted > 0 then
	callInSlices('HDEL', KEYS[2], deleted)
	callInSlices('HDEL', KEYS[3], deleted)
end
return results

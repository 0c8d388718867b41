-- Claims up to ARGV[1] due tasks in due order: each moves from the due set to the in-flight set
-- with a visibility deadline, its attempt is counted and it gets a new delivery token (settling
-- checks the token, so a stale delivery cannot settle a redelivered task). Expired in-flight
-- tasks are first put back in the due set with their original due time and order.
-- Cost: O((k + e) log N) for k claimed and e requeued tasks, independent of the queue length, in
-- a fixed number of Redis calls (multi-member commands), not a few per task.
-- It also applies the dead-letter retention the application set, so that it runs on a quiet
-- queue too: the dead letters older than maxAgeMillis, and the oldest beyond maxCount, are
-- deleted, at most ARGV[5] per claim.
-- KEYS[1] due (zset), KEYS[2] tasks (hash), KEYS[3] meta (hash), KEYS[4] in flight (zset id ->
-- visibility deadline), KEYS[5] sequence (string counter, also the source of tokens, see reserveSequence),
-- KEYS[6] dead (zset id -> failedAt), KEYS[7] dead payloads (hash), KEYS[8] dead info (hash),
-- KEYS[9] wake channel, KEYS[10] the partition count recorded in this partition's slot (see
-- misplaced in common.lua)
-- ARGV[1] max tasks to claim, ARGV[2] visibility timeout ms, ARGV[3] max expired tasks to requeue,
--   ARGV[4] the dead-letter retention "maxCount|maxAgeMillis", or '' to keep every dead letter,
--   ARGV[5] max dead letters to delete, ARGV[6] the claiming consumer's id, ARGV[7] the partition
--   count of the claiming instance
-- A claim that took tasks tells the other consumers on the wake channel, 'taken:' followed by
-- the claimer's id, now and the next due time as returned below: idle consumers woken for those
-- tasks need not claim too, so that a task costs about one claim however many consumers wait.
-- Returns: {now ms, ms until the next waiting task is due (0 if due now) or the first in-flight
--   delivery expires, whichever is first, or -1 if no task waits or is in flight,
--   the number of tasks found in line without their payload or meta (their keys were evicted or
--   deleted behind Baton's back; what is left of them is deleted),
--   the number of dead letters the retention deleted,
--   then per claimed task: id, payload, meta "scheduledAt|dueAt|attempt|token|sequence" and trace}
redis.replicate_commands()
local refused = misplaced()
if refused then
	return refused
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local expired = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
-- Read before anything is written: a value of a newer format ends the call (see newerFormat).
local expiredMetas = readStored(TASK, KEYS[2], KEYS[3], expired)
local newer = firstNewer(expired, expiredMetas)
if newer then
	return newerFormat(KEYS[2], expired[newer])
end
if #expired > 0 then
	callInSlices('ZREM', KEYS[4], expired)
	local requeued = {}
	for i, id in ipairs(expired) do
		if expiredMetas[i] then
			local _, due, _, _, member = parseMeta(expiredMetas[i])
			requeued[#requeued + 1] = due
			requeued[#requeued + 1] = member .. id
		end
	end
	if #requeued > 0 then
		callInSlices('ZADD', KEYS[1], requeued)
	end
end

-- Deletes the dead letters the retention asks for; returns how many.
local function applyRetention(limit)
	local maxCount, maxAge = string.match(ARGV[4], '^(%d+)|(%d+)$')
	if not maxCount then
		return 0
	end
	local deleted = redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', string.format('%.0f', now - tonumber(maxAge)),
		'LIMIT', 0, limit)
	local excess = redis.call('ZCARD', KEYS[6]) - #deleted - tonumber(maxCount)
	if excess > 0 and #deleted < limit then
		for _, id in ipairs(redis.call('ZRANGE', KEYS[6], #deleted, #deleted + math.min(excess, limit - #deleted) - 1)) do
			deleted[#deleted + 1] = id
		end
	end
	if #deleted > 0 then
		callInSlices('ZREM', KEYS[6], deleted)
		callInSlices('HDEL', KEYS[7], deleted)
		callInSlices('HDEL', KEYS[8], deleted)
	end
	return #deleted
end
local deadDeleted = applyRetention(tonumber(ARGV[5]))

local reply = {}
local inconsistent = 0
local dueCount = redis.call('ZCOUNT', KEYS[1], '-inf', now)
local count = math.min(dueCount, tonumber(ARGV[1]))
-- Read before they leave the line, for the same reason as the expired ones.
local ids = {}
if count > 0 then
	for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, count - 1)) do
		ids[#ids + 1] = string.sub(member, 17)
	end
end
local metas, payloads, formats = readStored(TASK, KEYS[2], KEYS[3], ids)
newer = firstNewer(ids, metas)
if newer then
	return newerFormat(KEYS[2], ids[newer])
end
if count > 0 then
	redis.call('ZPOPMIN', KEYS[1], count)
	local deadline = string.format('%.0f', now + tonumber(ARGV[2]))
	local sequence = reserveSequence(KEYS[5], #ids, time)
	local writes = newWrites(TASK, KEYS[2], KEYS[3])
	local inFlight = {}
	local broken = {}
	for i, id in ipairs(ids) do
		if not (metas[i] and payloads[i]) then
			broken[#broken + 1] = id
		end
		if metas[i] and payloads[i] then
			local scheduled, due, attempt, _, order, trace = parseMeta(metas[i])
			sequence = sequence + 1
			local meta = formatMeta(scheduled, due, tonumber(attempt) + 1, sequence, order, trace)
			addWrite(writes, id, meta, payloads[i], formats[i])
			inFlight[#inFlight + 1] = deadline
			inFlight[#inFlight + 1] = id
			reply[#reply + 1] = id
			reply[#reply + 1] = payloads[i]
			reply[#reply + 1] = meta
		end
	end
	if #inFlight > 0 then
		flushWrites(writes)
		callInSlices('ZADD', KEYS[4], inFlight)
	end
	if #broken > 0 then
		callInSlices('HDEL', KEYS[2], broken)
		callInSlices('HDEL', KEYS[3], broken)
		inconsistent = #broken
	end
end

-- When to claim again: when the next waiting task falls due, or when the first in-flight
-- delivery expires (its consumer may have died), whichever comes first.
local nextDueIn = -1
if dueCount > count then
	nextDueIn = 0
else
	local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
	if head[2] then
		nextDueIn = math.max(0, tonumber(head[2]) - now)
	end
	local expiring = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
	if expiring[2] then
		local expiresIn = math.max(0, tonumber(expiring[2]) - now)
		if nextDueIn < 0 or expiresIn < nextDueIn then
			nextDueIn = expiresIn
		end
	end
end
if count > 0 then
	-- Best effort: an ACL that denies the channel must not fail a claim that already wrote.
	redis.pcall('PUBLISH', KEYS[9], string.format('taken:%s:%.0f:%.0f', ARGV[6], now, nextDueIn))
end
table.insert(reply, 1, string.format('%.0f', deadDeleted))
table.insert(reply, 1, string.format('%.0f', inconsistent))
table.insert(reply, 1, string.format('%.0f', nextDueIn))
table.insert(reply, 1, string.format('%.0f', now))
return reply

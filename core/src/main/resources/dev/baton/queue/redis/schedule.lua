-- Schedules tasks whose id is not already scheduled or in flight, and publishes on the wake
-- channel when one of them falls due before every waiting task: 'due:' and its due time (ms).
-- Waiting members of the due set are a 16-digit sequence number followed by the id, so that tasks
-- due in the same millisecond (equal scores) sort in scheduling order.
-- KEYS[1] due (zset), KEYS[2] tasks (hash id -> payload), KEYS[3] meta (hash id -> meta),
-- KEYS[4] sequence (string counter, see reserveSequence), KEYS[5] wake channel, KEYS[6] this call's
-- remembered reply (see rememberedReply in common.lua), KEYS[7] the partition count recorded in
-- this partition's slot (see misplaced in common.lua)
-- ARGV[1] 'delay' (times are milliseconds from now, Redis time) or 'at' (epoch milliseconds)
-- ARGV[2] the trace context of the scheduling, '' or '|' followed by its fields, kept in each meta
-- ARGV[3] how long the reply is remembered, ms
-- ARGV[4] the storage format to write (see readStored in common.lua)
-- ARGV[5..] triples: id, payload JSON, time, then the partition count the ids were placed with
-- Meta: see parseMeta in common.lua
-- Returns: one integer per task, 1 if scheduled, 0 if its id was taken (by another call)
redis.replicate_commands()
local refused = misplaced()
if refused then
	return refused
end
local remembered = rememberedReply(KEYS[6])
if remembered then
	local results = {}
	for i = 1, #remembered do
		results[i] = tonumber(string.sub(remembered, i, i))
	end
	return results
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local earliest = head[2] and tonumber(head[2])
local relative = ARGV[1] == 'delay'
-- First only read: which tasks are new (an id may also be taken by an earlier task of this call),
-- and whether one falls due first, so that the wake-up goes out before anything is written.
local taken = {}
local new = {}
local dues = {}
local results = {}
local wake = false
for i = 5, #ARGV - 1, 3 do
	local id = ARGV[i]
	if taken[id] or redis.call('HEXISTS', KEYS[2], id) == 1 then
		results[#results + 1] = 0
	else
		taken[id] = true
		local due = tonumber(ARGV[i + 2])
		if relative then
			due = now + due
		end
		new[#new + 1] = i
		dues[#dues + 1] = due
		if earliest == nil or due < earliest then
			wake = true
			earliest = due
		end
		results[#results + 1] = 1
	end
end
if wake then
	redis.call('PUBLISH', KEYS[5], string.format('due:%.0f', earliest))
end
if #new > 0 then
	local sequence = reserveSequence(KEYS[4], #new, time)
	local trace = ARGV[2]
	local format = tonumber(ARGV[4])
	local writes = newWrites(TASK, KEYS[2], KEYS[3])
	local waiting = {}
	for n, i in ipairs(new) do
		local id = ARGV[i]
		local member = string.format('%016.0f', sequence + n)
		addWrite(writes, id, formatMeta(now, dues[n], 0, 0, member, trace), ARGV[i + 1], format)
		waiting[#waiting + 1] = string.format('%.0f', dues[n])
		waiting[#waiting + 1] = member .. id
	end
	flushWrites(writes)
	callInSlices('ZADD', KEYS[1], waiting)
	rememberReply(KEYS[6], table.concat(results), ARGV[3])
end
return results

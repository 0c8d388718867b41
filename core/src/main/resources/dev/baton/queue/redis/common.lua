-- Functions the queue scripts share; QueueScript loads this file in front of each script.
-- Scripts that publish a wake-up publish before they write anything: Redis does not undo a
-- script's writes when a later command fails, so a user denied the wake channel gets an error
-- from a call that changed nothing, and can retry it without storing a task twice.

-- Refuses a call that placed its ids with a partition count other than the one recorded in the
-- partition's slot (absent: one partition; negative: being changed, see PartitionLayout). Scripts
-- that place by id pass that record as their last key and the caller's count as their last
-- argument. Returns the error to return, or nil.
local function misplaced()
	local recorded = redis.call('GET', KEYS[#KEYS]) or '1'
	if recorded ~= ARGV[#ARGV] then
		return redis.error_reply('BATON-PARTITIONS ' .. recorded)
	end
	return nil
end

-- A script that Lettuce may send twice (it sends a command again after a reconnect when the reply
-- was lost) remembers its reply under a key of the call's own id for a few seconds, as long as its
-- caller waits: run again, it answers what the first run did, instead of what that run left (an id
-- it took itself, a task it deleted itself).
local function rememberedReply(key)
	return redis.call('GET', key)
end

local function rememberReply(key, reply, ttlMillis)
	redis.call('SET', key, reply, 'PX', ttlMillis)
end

-- Runs a command whose arguments come in groups (ids, or score-member and field-value pairs) in
-- slices that stay below Lua's limit on unpacked values.
local function callInSlices(command, key, args)
	for i = 1, #args, 1000 do
		redis.call(command, key, unpack(args, i, math.min(i + 999, #args)))
	end
end

-- HMGET of any number of fields, in slices like callInSlices.
local function hmgetInSlices(key, fields)
	local values = {}
	for i = 1, #fields, 1000 do
		local slice = redis.call('HMGET', key, unpack(fields, i, math.min(i + 999, #fields)))
		for _, value in ipairs(slice) do
			values[#values + 1] = value
		end
	end
	return values
end

-- Reserves count numbers of a queue's sequence (scheduling order, delivery tokens) and returns
-- the number before the first. The counter expires a day after its last use, so that a drained
-- queue leaves no key for ever, and starts again at the Redis clock in microseconds (TIME): past
-- every number it gave before, which only more than a million numbers a second since it started
-- could outrun, so that a stale delivery's token never matches a later task of the same id.
local function reserveSequence(key, count, time)
	redis.call('SET', key, string.format('%.0f', tonumber(time[1]) * 1000000 + tonumber(time[2])), 'NX')
	local last = redis.call('INCRBY', key, count) - count
	redis.call('PEXPIRE', key, 86400000)
	return last
end

-- A task's meta: "scheduledAt|dueAt|attempt|token|sequence" (times in epoch milliseconds of the
-- Redis clock, the sequence in 16 digits), then the trace context of its scheduling: '' or '|'
-- and its fields. Every rewrite keeps the trace context as it is.
local function parseMeta(meta)
	return string.match(meta, '^(%d+)|(%d+)|(%d+)|(%d+)|(%d+)(.*)$')
end

local function formatMeta(scheduled, due, attempt, token, sequence, trace)
	return string.format('%.0f|%.0f|%.0f|%.0f|%s%s', tonumber(scheduled), tonumber(due), tonumber(attempt),
		tonumber(token), sequence, trace)
end

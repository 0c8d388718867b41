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

-- Storage formats (docs/upgrading.md). Format 0 keeps a task's payload in the tasks hash and its
-- meta in the meta hash, and a dead letter's payload and "attempts|scheduledAt|reason" in the
-- dead payloads and dead info hashes. Format 1 keeps one value in the first hash of each pair: the
-- format's number as a byte, the meta's (or info's) numbers packed in binary, its text fields with
-- their lengths, then the payload. Only format 0 has an entry in the second hash, which tells the two
-- apart. Newer formats will start with a byte from 2 to 8, which no JSON text starts with: such a
-- value is another build's, which this one must not touch. A rewrite keeps the format a value has.

local function packTask(meta, payload)
	local scheduled, due, attempt, token, sequence, trace = parseMeta(meta)
	return struct.pack('>BI6I6I4I8I8I2', 1, tonumber(scheduled), tonumber(due), tonumber(attempt), tonumber(token),
		tonumber(sequence), #trace) .. trace .. payload
end

local function unpackTask(value)
	local _, scheduled, due, attempt, token, sequence, traceLength, next = struct.unpack('>BI6I6I4I8I8I2', value)
	return formatMeta(scheduled, due, attempt, token, string.format('%016.0f', sequence),
		string.sub(value, next, next + traceLength - 1)), string.sub(value, next + traceLength)
end

local function packDead(info, payload)
	local attempts, scheduled, reason = string.match(info, '^(%d+)|(%d+)|(.*)$')
	return struct.pack('>BI4I6I4', 1, tonumber(attempts), tonumber(scheduled), #reason) .. reason .. payload
end

local function unpackDead(value)
	local _, attempts, scheduled, reasonLength, next = struct.unpack('>BI4I6I4', value)
	return string.format('%.0f|%.0f|', attempts, scheduled) .. string.sub(value, next, next + reasonLength - 1),
		string.sub(value, next + reasonLength)
end

local TASK = {pack = packTask, unpack = unpackTask}
local DEAD_LETTER = {pack = packDead, unpack = unpackDead}

-- Reads stored values by id in either format: the metas (or infos), the payloads and the formats,
-- false where an id has none; a value of an unknown format has the format false and the meta
-- 'unknown' (see newerFormat).
local function readStored(kind, valuesKey, metasKey, ids)
	local values = hmgetInSlices(valuesKey, ids)
	local metas = hmgetInSlices(metasKey, ids)
	local payloads = {}
	local formats = {}
	for i = 1, #ids do
		payloads[i] = values[i]
		formats[i] = false
		if values[i] and metas[i] then
			formats[i] = 0
		elseif values[i] and string.byte(values[i], 1) == 1 then
			formats[i] = 1
			metas[i], payloads[i] = kind.unpack(values[i])
		elseif values[i] and (string.byte(values[i], 1) or 9) <= 8 then
			metas[i] = 'unknown'
		end
	end
	return metas, payloads, formats
end

-- The error a script returns, before it writes, when it meets a value of a format newer than this
-- build reads: data another build wrote is never read wrong or deleted as broken.
local function newerFormat(valuesKey, id)
	return redis.error_reply('BATON-FORMAT ' .. string.byte(redis.call('HGET', valuesKey, id), 1) .. ' ' .. id
		.. ': stored in a newer storage format than this build reads (see docs/upgrading.md)')
end

-- The index of the first id whose value is of a newer format, or nil.
local function firstNewer(ids, metas)
	for i = 1, #ids do
		if metas[i] == 'unknown' then
			return i
		end
	end
	return nil
end

-- Collects writes of stored values in either format, to make them in a few multi-field commands.
local function newWrites(kind, valuesKey, metasKey)
	return {kind = kind, valuesKey = valuesKey, metasKey = metasKey, values = {}, metas = {}}
end

local function addWrite(writes, id, meta, payload, format)
	if format == 0 then
		writes.values[#writes.values + 1] = id
		writes.values[#writes.values + 1] = payload
		writes.metas[#writes.metas + 1] = id
		writes.metas[#writes.metas + 1] = meta
	else
		writes.values[#writes.values + 1] = id
		writes.values[#writes.values + 1] = writes.kind.pack(meta, payload)
	end
end

local function flushWrites(writes)
	if #writes.values > 0 then
		callInSlices('HSET', writes.valuesKey, writes.values)
	end
	if #writes.metas > 0 then
		callInSlices('HSET', writes.metasKey, writes.metas)
	end
end

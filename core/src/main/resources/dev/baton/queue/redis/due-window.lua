-- Reads one partition's share of a page of the waiting tasks due in a window, without claiming
-- them: those after a cursor, by due time and then by id in byte order (members of the due set are
-- a 16-digit sequence and the id, so Redis orders tasks of equal due time by sequence, not id: the
-- tasks of the one due time where a page may end are all read by id, without their payloads).
-- Cost: O(log N + limit) for N waiting tasks, plus the ids of the tasks due at the cursor's due time
-- and at the last due time read (O(log N) to find, then as many as there are).
-- KEYS[1] due (zset), KEYS[2] tasks (hash), KEYS[3] meta (hash)
-- ARGV[1] the window's first due time (ms), ARGV[2] the first due time after it (ms),
-- ARGV[3] the cursor's due time (ms) or '' for the window's start, ARGV[4] the cursor's id,
-- ARGV[5] the most tasks to return
-- Returns: {'1' if more tasks after the last returned are due in the window, else '0', then per task
--   in order: due time (ms), id, payload, meta "scheduledAt|dueAt|attempt|token|sequence"} (a task
--   without payload or meta is left out)
local limit = tonumber(ARGV[5])
local wanted = limit + 1
local to = '(' .. ARGV[2]

-- Whether id a comes before id b in byte order (Lua's < follows the server's locale).
local function before(a, b)
	if a == b then
		return false
	end
	for i = 1, math.min(#a, #b) do
		local x, y = string.byte(a, i), string.byte(b, i)
		if x ~= y then
			return x < y
		end
	end
	return #a < #b
end

local function inOrder(a, b)
	if a[1] ~= b[1] then
		return a[1] < b[1]
	end
	return before(a[2], b[2])
end

-- The first 'count' ids due at 'score' that come after 'after' (nil: all), in order, reading the
-- ids due then by rank in slices of 1,000 (O(log N) to find the first) and keeping only the first
-- 'count' of them.
local function idsDueAt(score, after, count)
	local first = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. score)
	local total = redis.call('ZCOUNT', KEYS[1], score, score)
	local kept = {}
	for offset = 0, total - 1, 1000 do
		local members = redis.call('ZRANGE', KEYS[1], first + offset, first + math.min(offset + 999, total - 1))
		for _, member in ipairs(members) do
			local id = string.sub(member, 17)
			if after == nil or before(after, id) then
				kept[#kept + 1] = id
			end
		end
		if #kept > 2 * count + 1000 then
			table.sort(kept, before)
			for i = #kept, count + 1, -1 do
				kept[i] = nil
			end
		end
	end
	table.sort(kept, before)
	for i = #kept, count + 1, -1 do
		kept[i] = nil
	end
	return kept
end

local entries = {}
local function addDueAt(score, after)
	local number = tonumber(score)
	for _, id in ipairs(idsDueAt(score, after, wanted - #entries)) do
		entries[#entries + 1] = {number, id}
	end
end

local start = ARGV[1]
if ARGV[3] ~= '' then
	addDueAt(ARGV[3], ARGV[4])
	start = '(' .. ARGV[3]
end
while #entries < wanted do
	local need = wanted - #entries
	local waiting = redis.call('ZRANGEBYSCORE', KEYS[1], start, to, 'WITHSCORES', 'LIMIT', 0, need)
	if #waiting == 0 then
		break
	end
	-- A full slice may end inside the tasks due at its last due time: those are read by id.
	local full = #waiting / 2 == need
	local last = tonumber(waiting[#waiting])
	for i = 1, #waiting, 2 do
		local score = tonumber(waiting[i + 1])
		if score < last or not full then
			entries[#entries + 1] = {score, string.sub(waiting[i], 17)}
		end
	end
	if not full then
		break
	end
	addDueAt(waiting[#waiting], nil)
	start = '(' .. waiting[#waiting]
end
table.sort(entries, inOrder)

local reply = {(#entries > limit) and '1' or '0'}
for i = 1, math.min(limit, #entries) do
	local id = entries[i][2]
	local metas, payloads = readStored(TASK, KEYS[2], KEYS[3], {id})
	local payload, meta = payloads[1], metas[1]
	if meta == 'unknown' then
		return newerFormat(KEYS[2], id)
	elseif payload and meta then
		reply[#reply + 1] = string.format('%.0f', entries[i][1])
		reply[#reply + 1] = id
		reply[#reply + 1] = payload
		reply[#reply + 1] = meta
	end
end
return reply

-- Reads the earliest waiting tasks without claiming them.
-- KEYS[1] due (zset), KEYS[2] tasks (hash), KEYS[3] meta (hash)
-- ARGV[1] max tasks, ARGV[2] 'scores' for only their due times (so that a partitioned queue
--   learns how many of the earliest tasks of all each partition holds before it reads payloads),
--   or 'entries'
-- Returns: 'scores': the due times in due order; 'entries': per task in due order: id, payload,
--   meta "scheduledAt|dueAt|attempt|token|sequence" (a task without payload or meta is left out)
local reply = {}
local waiting = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
for i = 1, #waiting, 2 do
	if ARGV[2] == 'scores' then
		reply[#reply + 1] = waiting[i + 1]
	else
		local id = string.sub(waiting[i], 17)
		local metas, payloads = readStored(TASK, KEYS[2], KEYS[3], {id})
		local payload, meta = payloads[1], metas[1]
		if meta == 'unknown' then
			return newerFormat(KEYS[2], id)
		elseif payload and meta then
			reply[#reply + 1] = id
			reply[#reply + 1] = payload
			reply[#reply + 1] = meta
		end
	end
end
return reply

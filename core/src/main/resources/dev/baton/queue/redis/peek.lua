-- Reads the earliest waiting tasks without claiming them.
-- KEYS[1] due (zset), KEYS[2] tasks (hash), KEYS[3] meta (hash)
-- ARGV[1] max tasks
-- Returns: per task in due order: id, payload, meta "scheduledAt|dueAt|attempt|token|sequence"
local reply = {}
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)) do
	local id = string.sub(member, 17)
	local payload = redis.call('HGET', KEYS[2], id)
	local meta = redis.call('HGET', KEYS[3], id)
	if payload and meta then
		reply[#reply + 1] = id
		reply[#reply + 1] = payload
		reply[#reply + 1] = meta
	end
end
return reply

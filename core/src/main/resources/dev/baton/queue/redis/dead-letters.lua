-- Reads the most recent dead letters.
-- KEYS[1] dead (zset id -> failedAt), KEYS[2] dead payloads (hash), KEYS[3] dead info (hash)
-- ARGV[1] max dead letters, ARGV[2] 'scores' for only their failure times (so that a partitioned
--   queue learns how many of the most recent of all each partition holds before it reads
--   payloads), or 'entries'
-- Returns: 'scores': the failure times, most recent first; 'entries': per dead letter, most recent
--   first: id, failedAt ms, payload, "attempts|scheduledAt|reason"
local reply = {}
local dead = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
for i = 1, #dead, 2 do
	local id = dead[i]
	if ARGV[2] == 'scores' then
		reply[#reply + 1] = dead[i + 1]
	else
		local infos, payloads = readStored(DEAD_LETTER, KEYS[2], KEYS[3], {id})
		if infos[1] == 'unknown' then
			return newerFormat(KEYS[2], id)
		end
		reply[#reply + 1] = id
		reply[#reply + 1] = dead[i + 1]
		reply[#reply + 1] = payloads[1] or ''
		reply[#reply + 1] = infos[1] or '0|0|'
	end
end
return reply

-- Takes a free lock and issues its fencing token, or notes that the caller is waiting for it.
-- KEYS[1] lock, KEYS[2] fence (last token issued), KEYS[3] waiting marker (release publishes while it exists)
-- ARGV[1] owner id, ARGV[2] lease ms, ARGV[3] fence key lifetime ms, ARGV[4] waiting marker lifetime ms (0: not waiting)
-- Returns {1, fencing token} when acquired, {0, remaining lease of the holder in ms} when not.
redis.replicate_commands()
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
	local now = redis.call('TIME')
	local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
	local last = tonumber(redis.call('GET', KEYS[2]))
	if last and last >= token then
		-- the server clock stepped back, or two acquisitions fell in one microsecond
		token = last + 1
	end
	redis.call('SET', KEYS[2], string.format('%d', token), 'PX', ARGV[3])
	return {1, token}
end
local marker = tonumber(ARGV[4])
if marker > 0 and redis.call('PTTL', KEYS[3]) < marker then
	redis.call('SET', KEYS[3], '1', 'PX', marker)
end
return {0, redis.call('PTTL', KEYS[1])}

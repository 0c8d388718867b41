-- The fencing token function that acquire.lua and handoff.lua share; LockCommands loads this file in
-- front of them. Scripts that use it call redis.replicate_commands() before any write, as TIME is not
-- deterministic.

-- Issues the next fencing token of a lock: the server clock in microseconds, or one more than the last
-- token if the clock stepped back or two acquisitions fell in one microsecond. The holder may give the
-- reserved - 1 tokens after it to waiters of its instance that take the lock from it without a script, so
-- the fence key keeps the last reserved one, for fenceMillis. SET ... GET (Redis 6.2) reads and writes it
-- in one command, and only a token that must move past the last one takes a second.
local function issueToken(fenceKey, fenceMillis, reserved)
	local now = redis.call('TIME')
	local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
	local last = tonumber(redis.call('SET', fenceKey, string.format('%d', token + reserved - 1), 'PX', fenceMillis,
		'GET'))
	if last and last >= token then
		token = last + 1
		redis.call('SET', fenceKey, string.format('%d', token + reserved - 1), 'PX', fenceMillis)
	end
	return token
end

-- Takes a free lock and issues its fencing token, or notes that the caller is waiting for it.
-- KEYS[1] lock, KEYS[2] fence (last token issued), KEYS[3] waiting marker (release publishes while it exists;
-- a hash whose fields are the instances that wait, an owner id being its instance's id, ':' and a number)
-- ARGV[1] owner id, ARGV[2] lease ms, ARGV[3] fence key lifetime ms, ARGV[4] waiting marker lifetime ms (0: not waiting),
-- ARGV[5] fencing tokens to reserve (see fence.lua)
-- Returns {1, fencing token} when acquired, {0, remaining lease of the holder in ms} when not.
-- Idempotent: a lock that the owner already holds (this call run again after a reconnect, or an
-- earlier acquisition of the same owner whose reply was lost) counts as acquired, with its lease
-- set anew and a new token.
redis.replicate_commands()
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
	return {1, issueToken(KEYS[2], ARGV[3], tonumber(ARGV[5]))}
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
	return {1, issueToken(KEYS[2], ARGV[3], tonumber(ARGV[5]))}
end
if tonumber(ARGV[4]) > 0 then
	redis.call('HSET', KEYS[3], string.match(ARGV[1], '^(.*):') or ARGV[1], '1')
	redis.call('PEXPIRE', KEYS[3], ARGV[4])
end
return {0, redis.call('PTTL', KEYS[1])}

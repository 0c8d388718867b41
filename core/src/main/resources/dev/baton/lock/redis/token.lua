-- Issues the fencing token of an acquisition that did not get one when it took the lock (a plain
-- SET ... NX PX), if its owner still holds the lock: tokens are only ever issued to the holder, so
-- they grow in the order the lock was held.
-- KEYS[1] lock, KEYS[2] fence (last token issued)
-- ARGV[1] owner id, ARGV[2] fence key lifetime ms, ARGV[3] fencing tokens to reserve (see fence.lua)
-- Returns the fencing token, or 0 when the owner no longer holds the lock.
redis.replicate_commands()
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
	return 0
end
return issueToken(KEYS[2], ARGV[2], tonumber(ARGV[3]))

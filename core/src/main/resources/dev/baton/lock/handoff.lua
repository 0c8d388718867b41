-- Passes a lock from its owner straight to a waiter of the same instance, with a new fencing token:
-- no delete, no publish, and nobody else can take the lock in between.
-- KEYS[1] lock, KEYS[2] fence (last token issued)
-- ARGV[1] owner id, ARGV[2] new owner id, ARGV[3] new owner's lease ms, ARGV[4] fence key lifetime ms,
-- ARGV[5] fencing tokens to reserve (see fence.lua)
-- Returns the new owner's fencing token, or 0 when the owner no longer held the lock.
redis.replicate_commands()
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
	return 0
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return issueToken(KEYS[2], ARGV[4], tonumber(ARGV[5]))

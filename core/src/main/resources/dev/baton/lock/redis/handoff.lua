-- Passes a lock from its owner straight to a waiter of the same instance, with a new fencing token:
-- no delete, no publish, and nobody else can take the lock in between.
-- KEYS[1] lock, KEYS[2] fence (last token issued)
-- ARGV[1] owner id, ARGV[2] new owner id, ARGV[3] new owner's lease ms, ARGV[4] fence key lifetime ms,
-- ARGV[5] fencing tokens to reserve (see fence.lua)
-- Returns the new owner's fencing token, or 0 when the owner no longer held the lock.
-- Idempotent: run again after a reconnect, it finds the new owner in place and issues it a new token.
redis.replicate_commands()
local holder = redis.call('GET', KEYS[1])
if holder ~= ARGV[1] and holder ~= ARGV[2] then
	return 0
end
if holder == ARGV[1] then
	redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return issueToken(KEYS[2], ARGV[4], tonumber(ARGV[5]))

-- Keeps a released lock until a shorter expiry (lockAtLeastFor): renames its owner so that a
-- renewal already on its way cannot extend it again, and wakes waiters to see the new expiry.
-- KEYS[1] lock, KEYS[2] waiting marker
-- ARGV[1] owner id, ARGV[2] remaining ms, ARGV[3] channel that waiters listen on
-- Returns 1 when kept, 0 when the lock expired or belongs to someone else.
-- Idempotent: run again after a reconnect, it finds the lock already kept.
-- Publishes before it writes (see release.lua): waiters read the new expiry after the script.
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] .. ':kept' then
	return 1
end
if holder ~= ARGV[1] then
	return 0
end
if redis.call('EXISTS', KEYS[2]) == 1 then
	redis.call('PUBLISH', ARGV[3], '')
end
redis.call('SET', KEYS[1], ARGV[1] .. ':kept', 'PX', ARGV[2])
return 1

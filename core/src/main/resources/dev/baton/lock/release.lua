-- Deletes a lock held by the given owner (any owner when ARGV[1] is empty) and wakes its waiters.
-- KEYS[1] lock, KEYS[2] waiting marker
-- ARGV[1] owner id, or '' to release whoever holds it; ARGV[2] channel that waiters listen on
-- Returns 1 when deleted, 0 when the lock was not held (by that owner).
local owner = redis.call('GET', KEYS[1])
if not owner or (ARGV[1] ~= '' and owner ~= ARGV[1]) then
	return 0
end
redis.call('DEL', KEYS[1])
if redis.call('EXISTS', KEYS[2]) == 1 then
	redis.call('PUBLISH', ARGV[2], '')
end
return 1

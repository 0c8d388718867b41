-- Deletes a lock held by the given owner (any owner when ARGV[1] is empty) and wakes its waiters
-- with a message that names the owner, so that each instance tells its own releases from others'.
-- KEYS[1] lock, KEYS[2] waiting marker
-- ARGV[1] owner id, or '' to release whoever holds it; ARGV[2] channel that waiters listen on;
-- ARGV[3] '1' when the releasing instance, whose waiters listen, yields the lock to other instances
-- Returns 0 when the lock was not held by anyone (expired, or this release run again after a
-- reconnect), 1 when deleted, 2 when deleted on yielding while another instance waits for it too,
-- 3 when another owner holds it.
-- Publishes before it deletes: Redis does not undo a script's writes when a later command fails,
-- so a user denied the channel gets an error from a release that changed nothing.
local owner = redis.call('GET', KEYS[1])
if not owner then
	return 0
end
if ARGV[1] ~= '' and owner ~= ARGV[1] then
	return 3
end
local yielding = ARGV[3] == '1'
if yielding or redis.call('EXISTS', KEYS[2]) == 1 then
	redis.call('PUBLISH', ARGV[2], owner)
end
redis.call('DEL', KEYS[1])
-- Other instances wait if the marker names one besides the owner's. Not PUBLISH's count of receivers:
-- in a cluster it counts only the subscribers connected to this node.
if yielding and redis.call('HLEN', KEYS[2]) > redis.call('HEXISTS', KEYS[2], string.match(owner, '^(.*):') or owner) then
	return 2
end
return 1

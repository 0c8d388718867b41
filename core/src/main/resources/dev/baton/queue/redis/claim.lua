-- Claims up to ARGV[1] due tasks in due order: each moves from the due set to the in-flight set
-- with a visibility deadline, its attempt is counted and it gets a new delivery token (settling
-- checks the token, so a stale delivery cannot settle a redelivered task). Expired in-flight
-- tasks are first put back in the due set with their original due time and order.
-- Cost: O((k + e) log N) for k claimed and e requeued tasks, independent of the queue length.
-- KEYS[1] due (zset), KEYS[2] tasks (hash), KEYS[3] meta (hash), KEYS[4] in flight (zset id ->
-- visibility deadline), KEYS[5] sequence (string counter, also the source of tokens)
-- ARGV[1] max tasks to claim, ARGV[2] visibility timeout ms, ARGV[3] max expired tasks to requeue
-- Returns: {now ms, ms until the next waiting task is due (0 if due now) or -1 if none waits,
--   then per claimed task: id, payload, meta "scheduledAt|dueAt|attempt|token|sequence"}
redis.replicate_commands()
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local expired = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(expired) do
	redis.call('ZREM', KEYS[4], id)
	local meta = redis.call('HGET', KEYS[3], id)
	if meta then
		local due, member = string.match(meta, '^%d+|(%d+)|%d+|%d+|(%d+)$')
		redis.call('ZADD', KEYS[1], due, member .. id)
	end
end
local deadline = string.format('%.0f', now + tonumber(ARGV[2]))
local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
local first = tonumber(redis.call('GET', KEYS[5]) or '0')
local sequence = first
local reply = {}
for _, member in ipairs(members) do
	redis.call('ZREM', KEYS[1], member)
	local id = string.sub(member, 17)
	local meta = redis.call('HGET', KEYS[3], id)
	local payload = redis.call('HGET', KEYS[2], id)
	if meta and payload then
		local scheduled, due, attempt, _, order = string.match(meta, '^(%d+)|(%d+)|(%d+)|(%d+)|(%d+)$')
		sequence = sequence + 1
		meta = string.format('%s|%s|%.0f|%.0f|%s', scheduled, due, tonumber(attempt) + 1, sequence, order)
		redis.call('HSET', KEYS[3], id, meta)
		redis.call('ZADD', KEYS[4], deadline, id)
		reply[#reply + 1] = id
		reply[#reply + 1] = payload
		reply[#reply + 1] = meta
	end
end
if sequence ~= first then
	redis.call('SET', KEYS[5], string.format('%.0f', sequence))
end
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local nextDueIn = -1
if head[2] then
	nextDueIn = math.max(0, tonumber(head[2]) - now)
end
table.insert(reply, 1, string.format('%.0f', nextDueIn))
table.insert(reply, 1, string.format('%.0f', now))
return reply

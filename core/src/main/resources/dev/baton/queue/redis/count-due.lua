-- Counts the waiting tasks due in a window.
-- KEYS[1] due (zset)
-- ARGV[1] the window's first due time (ms), ARGV[2] the first due time after it (ms)
-- Returns: {the number of waiting tasks due in the window}
return {redis.call('ZCOUNT', KEYS[1], ARGV[1], '(' .. ARGV[2])}

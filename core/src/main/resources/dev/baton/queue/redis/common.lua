-- Functions the queue scripts share; QueueScript loads this file in front of each script.

-- Runs a command whose arguments come in groups (ids, or score-member and field-value pairs) in
-- slices that stay below Lua's limit on unpacked values.
local function callInSlices(command, key, args)
	for i = 1, #args, 1000 do
		redis.call(command, key, unpack(args, i, math.min(i + 999, #args)))
	end
end

-- HMGET of any number of fields, in slices like callInSlices.
local function hmgetInSlices(key, fields)
	local values = {}
	for i = 1, #fields, 1000 do
		local slice = redis.call('HMGET', key, unpack(fields, i, math.min(i + 999, #fields)))
		for _, value in ipairs(slice) do
			values[#values + 1] = value
		end
	end
	return values
end

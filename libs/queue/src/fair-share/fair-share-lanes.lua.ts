/**
 * The fair share's second level (docs/fair-share.md, "Lanes"): within a tenant's share, its lanes (a queue's
 * choice: delivery's are the receivers) take turns, and none holds more than half of the slots its tenant may
 * hold (at least one), so one lane's long jobs leave the rest of the tenant's share to its other lanes.
 * A part of the scripts' common Lua, after its locals (rcall, pendingPrefix, KEYS).
 *
 * KEYS 10 lanes      HASH  lane field → slots the lane holds
 *      11 leaseLane  HASH  lease id → its lane field (leases without a lane have none)
 * beside them, per tenant, `lanes:ring:<tenant>` (LIST, its lanes with work waiting, each once) and per lane
 * `lanes:list:<field>` (LIST, its waiting job ids). A lane's field is `<length of tenant>:<tenant><lane>`, so no
 * two tenants' lanes share one. Jobs without a lane wait in their tenant's own list, as before lanes, and go first.
 */

/** At most this many of a tenant's lanes are looked at by one admission of the tenant. */
const MAX_LANE_VISITS = 50;

export const LANES = `
local lanesKey, leaseLaneKey = KEYS[10], KEYS[11]

local function laneField(tenant, lane)
  if not lane or lane == '' then return nil end
  return string.len(tenant) .. ':' .. tenant .. lane
end

local function laneRing(tenant)
  return lanesKey .. ':ring:' .. tenant
end

local function laneList(field)
  return lanesKey .. ':list:' .. field
end

-- Whether a tenant has work waiting, in its own list or in a lane: what puts it in the ring.
local function waits(tenant)
  return rcall('LLEN', pendingPrefix .. tenant) > 0 or rcall('LLEN', laneRing(tenant)) > 0
end

-- Whether a lane (a field; nil for none) may take one more of the slots its tenant may hold now (cap).
local function laneMayTake(field, cap)
  if not field then return true end
  return tonumber(rcall('HGET', lanesKey, field) or '0') < math.max(1, math.floor(cap / 2))
end

-- Puts a job at the end (or, first, the head) of its lane; a lane that had none waiting joins its
-- tenant's turns there too. False for a job without a lane.
local function enqueueInLane(id, tenant, lane, first)
  local field = laneField(tenant, lane)
  if not field then return false end
  local push = 'RPUSH'
  if first then push = 'LPUSH' end
  local list = laneList(field)
  if rcall('LLEN', list) == 0 then rcall(push, laneRing(tenant), lane) end
  rcall(push, list, id)
  return true
end

-- The next job of a tenant that may take one more slot of the cap it has now: from its own list, else from
-- its lanes in turn, the first under its part. Returns its id (nil when none may start) and its lane's field.
local function nextOfTenant(tenant, cap)
  local id = rcall('LPOP', pendingPrefix .. tenant)
  if id then return id, nil end
  local ring = laneRing(tenant)
  for _ = 1, math.min(rcall('LLEN', ring), ${MAX_LANE_VISITS}) do
    local lane = rcall('LPOP', ring)
    local field = laneField(tenant, lane)
    local list = laneList(field)
    local taken = laneMayTake(field, cap) and rcall('LPOP', list)
    if rcall('LLEN', list) > 0 then rcall('RPUSH', ring, lane) end
    if taken then return taken, field end
  end
  return nil, nil
end

local function leaseInLane(id, field)
  if not field then return end
  rcall('HSET', leaseLaneKey, id, field)
  rcall('HINCRBY', lanesKey, field, 1)
end

local function unleaseInLane(id)
  local field = rcall('HGET', leaseLaneKey, id)
  if not field then return end
  rcall('HDEL', leaseLaneKey, id)
  if rcall('HINCRBY', lanesKey, field, -1) <= 0 then rcall('HDEL', lanesKey, field) end
end
`;

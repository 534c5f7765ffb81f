// Custom links (spec: "Custom links connect the floor nodes nearest their endpoints and preserve
// their labels and directionality"; grid-pathfinding-library.md "Off-mesh links": one-way unless
// given both ways, cost defaults to the straight-line distance, an endpoint off the grid errors).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "bake_stages.h"
#include "strata/nav/column_builder.h"
#include "search_rates.h"

namespace strata::nav {

std::string noFloorWithin(const AgentSettings& settings) {
  char text[96];
  std::snprintf(text, sizeof text, "no floor within %g m across and %g m up or down", settings.link_snap_distance,
                settings.link_snap_height);
  return text;
}

ProfileEntryName profileEntryName(const std::string& written, const std::string& mesh, const std::string& agent,
                                  const std::string& fallback, const std::string& detail) {
  if (written.empty()) return {mesh + ": agent " + agent + ": " + fallback, std::string()};
  return {written + " " + detail, " in " + mesh};
}

double customLinkCost(const AgentProfile& profile, const LinkSpec& spec, int label_rule) {
  if (spec.cost >= 0) return spec.cost;
  const double length = std::max(1e-3, sim::length(spec.to - spec.from));
  return label_rule < 0 ? length : length * profile.areas[static_cast<std::size_t>(label_rule)].cost;
}

double linkSnapHeight(const AgentSettings& settings) { return settings.link_snap_height + kHeightTolerance; }

uint32_t snapEndpoint(const LayeredGraph& graph, const sim::Vec3& point, const AgentSettings& settings) {
  SnapSettings snap;
  snap.max_horizontal = settings.link_snap_distance;
  snap.above = std::min(snap.above, linkSnapHeight(settings));
  snap.below = linkSnapHeight(settings);
  const uint32_t under = snapToNode(graph, point, snap);
  if (under != kNoNode) return under;
  return graph.nearestNode(point, settings.link_snap_distance, linkSnapHeight(settings), /*through_ceilings=*/false);
}

Status addCustomLinks(const AgentProfile& profile, LayeredGraph& graph, const std::string& source,
                      std::vector<OffMeshLink> second_jumps, std::vector<std::string>* warnings) {
  graph.links = std::move(second_jumps);
  graph.link_labels.clear();
  auto where = [](const sim::Vec3& p) { return sim::pointText(p); };
  const std::vector<int> label_rules = linkLabelRules(profile);
  // Label -> index in graph.link_labels (first use order), by hash: a linear search per link made
  // 100,000 links of distinct labels a 24 s stage (an audit).
  std::unordered_map<std::string, uint32_t> label_index;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, float>, std::size_t> added_ways;  // (from, to, label, cost) of a way -> its link
  for (std::size_t i = 0; i < profile.links.size(); ++i) {
    const LinkSpec& spec = profile.links[i];
    // The floor under each end, as a path's endpoints and a field's origin snap: an end at head
    // height under a slab took the slab's top in 3-D.
    const uint32_t from = snapEndpoint(graph, spec.from, profile.settings);
    const uint32_t to = snapEndpoint(graph, spec.to, profile.settings);
    const std::string quoted = "('" + spec.label + "')";
    const auto [name, in] =
        profileEntryName(spec.source, source, profile.settings.name, "link " + std::to_string(i) + " " + quoted, quoted);
    if (from == kNoNode) return Error::badInput(name + ": " + noFloorWithin(profile.settings) + " of from " + where(spec.from) + in);
    if (to == kNoNode) return Error::badInput(name + ": " + noFloorWithin(profile.settings) + " of to " + where(spec.to) + in);
    // Both ends on one floor node (a link shorter than a cell, or two ends over one floor): a
    // loop no route takes. Left out, with a warning: it was kept as a self-loop edge, silently.
    if (from == to) {
      if (warnings != nullptr)
        warnings->push_back(name + ": both ends snap to the one floor node at " +
                            where(graph.nodePosition(from)) + in + ": the link leads nowhere and is left out");
      continue;
    }
    // A link whose label names an area of infinite cost is no candidate (the spec's rule): left
    // out, with a warning (it was dropped silently, its label still listed).
    const double cost = customLinkCost(profile, spec, label_rules[i]);
    if (!std::isfinite(cost)) {
      if (warnings != nullptr)
        warnings->push_back(name + ": its label matches area rule " + std::to_string(label_rules[i]) + ", whose area '" +
                            profile.areas[static_cast<std::size_t>(label_rules[i])].area +
                            "' costs inf (never entered): the link is left out");
      continue;
    }
    // An area of infinite cost is never entered, through a link either: a direction that lands
    // in one is left out (a two-way link into it keeps only its way out), with a warning (it was
    // silent, unlike a link whose label's area costs inf; an audit).
    const bool to_open = detail::enterableArea(graph.area_costs, graph.area[to]),
               from_open = detail::enterableArea(graph.area_costs, graph.area[from]);
    const bool forward = to_open, backward = spec.bidirectional && from_open;
    if (warnings != nullptr && (!to_open || (spec.bidirectional && !from_open))) {
      const auto area = [&](uint32_t node) { return "'" + graph.area_names[graph.area[node]] + "'"; };
      std::string what = std::string(to_open ? "its from end" : "its to end") + " lands in area " + area(to_open ? from : to) +
                         ", which costs inf";
      if (!forward && !backward && spec.bidirectional)
        what = graph.area[from] == graph.area[to] ? "both ends land in area " + area(to) + ", which costs inf"
                                                  : "both ends land in areas " + area(from) + " and " + area(to) + ", which cost inf";
      warnings->push_back(name + ": " + what + " (never entered): " +
                          (!forward && !backward ? "the link is left out"
                           : forward             ? "only the way from its from end to its to end is kept"
                                                 : "only the way from its to end to its from end is kept"));
    }
    if (!forward && !backward) continue;
    const auto [label_it, added] = label_index.try_emplace(spec.label, static_cast<uint32_t>(graph.link_labels.size()));
    if (added) graph.link_labels.push_back(spec.label);
    const uint32_t label = label_it->second;
    // A link every way of which an earlier link already adds (the same floors, label and cost:
    // the same link written twice, or a one-way link along a two-way one) is kept as written, with
    // a warning (an audit: two identical links baked without a word, counted as two).
    if (warnings != nullptr) {
      const auto key = [&](uint32_t a, uint32_t b) { return std::tuple{a, b, label, static_cast<float>(cost)}; };
      std::size_t earlier = profile.links.size();  // the first earlier link found adding one of its ways
      bool repeated = true;
      for (const auto& [on, a, b] : {std::tuple{forward, from, to}, std::tuple{backward, to, from}}) {
        if (!on) continue;
        const auto [it, inserted] = added_ways.emplace(key(a, b), i);
        if (inserted) repeated = false;
        else earlier = std::min(earlier, it->second);
      }
      if (repeated) {
        const LinkSpec& first = profile.links[earlier];
        warnings->push_back(name + ": " + (first.source.empty() ? "link " + std::to_string(earlier) : first.source) +
                            " already joins the same floors the same way, with the same label and cost" + in +
                            ": the copy adds nothing a route needs");
      }
    }
    if (forward) graph.links.push_back({from, to, static_cast<float>(cost), label, static_cast<uint32_t>(i), backward});
    if (backward) graph.links.push_back({to, from, static_cast<float>(cost), label, static_cast<uint32_t>(i), forward});
    graph.flags[from] |= kNodeLinkEnd;
    graph.flags[to] |= kNodeLinkEnd;
  }
  indexLinks(graph);
  return Ok{};
}

void indexLinks(LayeredGraph& graph) {
  std::stable_sort(graph.links.begin(), graph.links.end(), [](const OffMeshLink& a, const OffMeshLink& b) {
    if (a.from_node != b.from_node) return a.from_node < b.from_node;
    if (a.profile_index != b.profile_index) return a.profile_index < b.profile_index;
    return a.to_node < b.to_node;
  });
  graph.indexLinkOffsets();
}

}  // namespace strata::nav

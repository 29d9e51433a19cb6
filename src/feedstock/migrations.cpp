#include "feedstock/migrations.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include <yaml-cpp/yaml.h>

#include "recipe/raw_recipe.hpp"
#include "recipe/selectors.hpp"
#include "recipe/yaml_tree.hpp"
#include "types/version.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::feedstock {
namespace {

namespace stdfs = std::filesystem;
using Values = std::vector<std::string>;

// conda-smithy's _version_order comparison: the index in `ordering` when
// one is given, else VersionOrder (' ' read as '.', '*' as '1'), falling
// back to the text where a value is no version.
struct Order {
    const Values* ordering = nullptr;

    Result<long> index(const std::string& v) const {
        auto it = std::find(ordering->begin(), ordering->end(), v);
        if (it == ordering->end())
            return fail(SourceLoc{}, "migration ordering has no value '" + v + "'",
                        "list every value of the key under __migrator.ordering");
        return static_cast<long>(it - ordering->begin());
    }
    static std::optional<types::Version> version(std::string v) {
        for (auto& c : v) {
            if (c == ' ') c = '.';
            if (c == '*') c = '1';
        }
        auto p = types::Version::parse(v);
        if (!p) return std::nullopt;
        return *p;
    }
    // a < b
    bool less(const std::string& a, const std::string& b) const {
        if (ordering) {
            auto ia = index(a), ib = index(b);
            if (ia && ib) return *ia < *ib;
            return a < b;
        }
        auto va = version(a), vb = version(b);
        if (va && vb) return *va < *vb;
        return a < b;
    }
};

const Values* ordering_of(const Migration& m, const std::string& key) {
    auto it = m.ordering.find(key);
    return it == m.ordering.end() ? nullptr : &it->second;
}

// variant_key_add: position by position the higher value; longer tails kept.
Result<Values> key_add(const Values& left, const Values& right, const Values* ordering) {
    Order ord{ordering};
    Values out;
    if (!ordering) {
        size_t common = std::min(left.size(), right.size());
        for (size_t i = 0; i < common; ++i) out.push_back(ord.less(left[i], right[i]) ? right[i] : left[i]);
        for (const Values* vs : {&left, &right})
            if (vs->size() > common) out.insert(out.end(), vs->begin() + static_cast<long>(common), vs->end());
        return out;
    }
    std::set<long> merged;
    for (const Values* vs : {&left, &right})
        for (const auto& v : *vs) {
            auto i = ord.index(v);
            if (!i) return unexpected(i.error());
            merged.insert(*i);
        }
    size_t longer = std::max(left.size(), right.size());
    if (merged.size() < longer) {
        if (merged.size() == 1) return Values(longer, left.front());
        return fail(SourceLoc{}, "ambiguous migration merge: duplicate values with an ordering");
    }
    std::vector<long> m(merged.begin(), merged.end());
    for (size_t i = m.size() - longer; i < m.size(); ++i) out.push_back((*ordering)[static_cast<size_t>(m[i])]);
    return out;
}

std::string py_list_str(const Values& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", '" : "'") + v[i] + "'";
    return s + "]";
}

const Values* get(const AlgebraSpec& s, const std::string& k) {
    auto it = s.lists.find(k);
    return it == s.lists.end() ? nullptr : &it->second;
}

constexpr const char* kKeyAddUnmetHint = "key_add only extends keys that already have values";

Result<AlgebraSpec> op_key_add(const AlgebraSpec& v1, const Migration& m) {
    if (m.primary_key.empty()) return v1;
    const std::string& pk = m.primary_key.front();
    const AlgebraSpec& v2 = m.spec;
    if (!get(v2, pk)) return v1;
    if (!get(v1, pk))
        return fail(SourceLoc{m.file}, "key_add migration: '" + pk + "' is not in the pinning or the recipe's config",
                    kKeyAddUnmetHint);
    AlgebraSpec result = v1;
    std::set<std::string> added;
    Values pk_group = {pk};
    for (const auto& chunk : result.zip_keys)
        if (std::find(chunk.begin(), chunk.end(), pk) != chunk.end()) pk_group = chunk;
    if (!m.additional_zip_keys.empty()) {
        bool found = false;
        for (auto& chunk : result.zip_keys) {
            if (std::find(chunk.begin(), chunk.end(), pk) == chunk.end()) continue;
            for (const auto& k : m.additional_zip_keys)
                if (std::find(chunk.begin(), chunk.end(), k) == chunk.end()) {
                    chunk.push_back(k);
                    added.insert(k);
                    pk_group = chunk;
                }
            found = true;
            break;
        }
        if (!found) {
            pk_group = {pk};
            pk_group.insert(pk_group.end(), m.additional_zip_keys.begin(), m.additional_zip_keys.end());
            result.zip_keys.push_back(pk_group);
            added.insert(m.additional_zip_keys.begin(), m.additional_zip_keys.end());
        }
    }
    const Values& pk_values = *get(v2, pk);
    for (size_t idx = 0; idx < pk_values.size(); ++idx) {
        AlgebraSpec left = result;
        size_t n = left.lists[pk].size();
        for (const auto& k : added) {
            auto& lv = left.lists[k];
            if (lv.size() != 1)
                return fail(SourceLoc{m.file}, "key_add migration: cannot broadcast '" + k + "' (" +
                                                   std::to_string(lv.size()) + " values) to " + std::to_string(n));
            lv = Values(n, lv.front());
        }
        for (const auto& k : pk_group)
            if (!get(v2, k) || get(v2, k)->size() <= idx)
                return fail(SourceLoc{m.file}, "key_add migration: zip key '" + k + "' is not given for every '" + pk + "'",
                            "give each key zipped with the primary key as many values");
        std::vector<Values> tuples;
        for (size_t i = 0; i < n; ++i) {
            Values t;
            for (const auto& k : pk_group) t.push_back(i < left.lists[k].size() ? left.lists[k][i] : "");
            tuples.push_back(std::move(t));
        }
        Values fresh;
        for (const auto& k : pk_group) fresh.push_back((*get(v2, k))[idx]);
        if (std::find(tuples.begin(), tuples.end(), fresh) != tuples.end()) continue;
        tuples.push_back(fresh);
        std::sort(tuples.begin(), tuples.end());
        tuples.erase(std::unique(tuples.begin(), tuples.end()), tuples.end());
        size_t pi = static_cast<size_t>(std::find(pk_group.begin(), pk_group.end(), pk) - pk_group.begin());
        Order ord{ordering_of(m, pk)};
        std::stable_sort(tuples.begin(), tuples.end(),
                         [&](const Values& a, const Values& b) { return ord.less(a[pi], b[pi]); });
        for (size_t i = 0; i < pk_group.size(); ++i) {
            Values col;
            for (const auto& t : tuples) col.push_back(t[i]);
            result.lists[pk_group[i]] = std::move(col);
        }
    }
    for (const auto& [k, ord] : m.ordering) {
        if (k == pk || added.count(k)) continue;
        const Values* a = get(v1, k);
        const Values* b = get(v2, k);
        if (!a || !b) continue;
        auto merged = key_add(*a, *b, &ord);
        if (!merged) return unexpected(merged.error());
        result.lists[k] = *merged;
    }
    return result;
}

Result<AlgebraSpec> op_key_remove(const AlgebraSpec& v1, const Migration& m) {
    if (m.primary_key.empty()) return v1;
    const std::string& pk = m.primary_key.front();
    const Values* rm = get(m.spec, pk);
    const Values* cur = get(v1, pk);
    if (!rm || !cur) return v1;
    if (rm->size() != 1)
        return fail(SourceLoc{m.file}, "key_remove migration: '" + pk + "' must have exactly one value");
    if (std::find(cur->begin(), cur->end(), rm->front()) == cur->end()) return v1;
    Values keys(cur->begin(), cur->end());
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    Order ord{ordering_of(m, pk)};
    std::stable_sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) { return ord.less(a, b); });
    keys.erase(std::find(keys.begin(), keys.end(), rm->front()));
    AlgebraSpec result = v1;
    result.lists[pk] = keys;
    for (const auto& chunk : v1.zip_keys) {
        if (std::find(chunk.begin(), chunk.end(), pk) == chunk.end()) continue;
        for (const auto& k : chunk) {
            if (k == pk || !get(v1, k)) continue;
            Values nv;
            for (const auto& val : keys) {
                size_t j = static_cast<size_t>(std::find(cur->begin(), cur->end(), val) - cur->begin());
                nv.push_back(j < get(v1, k)->size() ? (*get(v1, k))[j] : "");
            }
            result.lists[k] = std::move(nv);
        }
    }
    return result;
}

// CFEP-9 zip_keys merge: a group that fits inside a migration group is
// replaced by it; the rest kept; sorted by (size, text).
std::vector<Values> merge_zip_keys(const std::vector<Values>& l, const std::vector<Values>& r) {
    auto as_set = [](const std::vector<Values>& gs) {
        std::vector<std::set<std::string>> out;
        for (const auto& g : gs) {
            std::set<std::string> s(g.begin(), g.end());
            if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
        }
        return out;
    };
    auto zl = as_set(l), zr = as_set(r);
    auto by_size = [](std::vector<std::set<std::string>> v) {
        std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
        return v;
    };
    std::vector<std::set<std::string>> out;
    for (const auto& ri : by_size(zr)) {
        for (const auto& li : by_size(zl)) {
            if (std::includes(ri.begin(), ri.end(), li.begin(), li.end())) {
                zl.erase(std::find(zl.begin(), zl.end(), li));
                zr.erase(std::find(zr.begin(), zr.end(), ri));
                out.push_back(ri);
                break;
            }
        }
    }
    out.insert(out.end(), zl.begin(), zl.end());
    out.insert(out.end(), zr.begin(), zr.end());
    std::vector<Values> res;
    for (const auto& s : out) res.emplace_back(s.begin(), s.end());
    std::sort(res.begin(), res.end(), [](const Values& a, const Values& b) {
        if (a.size() != b.size()) return a.size() < b.size();
        return py_list_str(a) < py_list_str(b);
    });
    return res;
}

}  // namespace

AlgebraSpec AlgebraSpec::from(const variant::SpecSource& s) {
    AlgebraSpec a;
    for (const auto& [k, v] : s.lists) {
        if (k == "zip_keys") {
            for (const auto& g : v) a.zip_keys.push_back(str::split(g, variant::kSpecialSep));
        } else if (k == "pin_run_as_build") {
            for (const auto& e : v) {
                auto p = str::split(e, variant::kSpecialSep);
                if (p.size() == 3) a.pin_run_as_build[p[0]] = {p[1], p[2]};
            }
        } else {
            a.lists[k] = v;
        }
    }
    return a;
}

variant::SpecSource AlgebraSpec::to_source(const std::string& name) const {
    variant::SpecSource s;
    s.name = name;
    for (const auto& [k, v] : lists) s.lists.emplace_back(k, v);
    if (!zip_keys.empty()) {
        Values groups;
        for (const auto& g : zip_keys) groups.push_back(str::join(g, std::string(1, variant::kSpecialSep)));
        s.lists.emplace_back("zip_keys", groups);
    }
    if (!pin_run_as_build.empty()) {
        Values e;
        for (const auto& [pkg, pin] : pin_run_as_build)
            e.push_back(pkg + variant::kSpecialSep + pin.min_pin + variant::kSpecialSep + pin.max_pin);
        s.lists.emplace_back("pin_run_as_build", e);
    }
    return s;
}

Result<AlgebraSpec> variant_add(const AlgebraSpec& v1, const Migration& m) {
    if (m.operation == "key_add") return op_key_add(v1, m);
    if (m.operation == "key_remove") return op_key_remove(v1, m);
    if (!m.operation.empty())
        return fail(SourceLoc{m.file}, "unknown migration operation '" + m.operation + "'",
                    "conda-smithy knows key_add and key_remove");
    const AlgebraSpec& v2 = m.spec;
    AlgebraSpec out;
    // Specials: pin_run_as_build merged per package (the migration wins),
    // zip_keys merged as CFEP-9 says when both sides have them.
    out.pin_run_as_build = v1.pin_run_as_build;
    for (const auto& [k, v] : v2.pin_run_as_build) out.pin_run_as_build[k] = v;
    if (!v1.zip_keys.empty() && !v2.zip_keys.empty())
        out.zip_keys = merge_zip_keys(v1.zip_keys, v2.zip_keys);
    else
        out.zip_keys = v1.zip_keys.empty() ? v2.zip_keys : v1.zip_keys;

    std::vector<Values> groups = v1.zip_keys;
    groups.insert(groups.end(), v2.zip_keys.begin(), v2.zip_keys.end());
    std::set<std::string> handled;
    for (const auto& pk : m.primary_key) {
        const Values* r = get(v2, pk);
        if (!r) continue;
        Values l = get(v1, pk) ? *get(v1, pk) : Values{};
        auto merged = key_add(l, *r, ordering_of(m, pk));
        if (!merged) return unexpected(merged.error());
        out.lists[pk] = *merged;
        const Values* group = nullptr;
        for (const auto& g : groups)
            if (std::find(g.begin(), g.end(), pk) != g.end()) {
                group = &g;
                break;
            }
        if (!group) continue;
        Values both = l;
        both.insert(both.end(), r->begin(), r->end());
        std::vector<size_t> chosen;
        for (size_t i = 0; i < both.size(); ++i)
            if (std::find(merged->begin(), merged->end(), both[i]) != merged->end()) chosen.push_back(i);
        for (const auto& k : *group) {
            if (k == pk) continue;
            Values kb = get(v1, k) ? *get(v1, k) : Values{};
            if (const Values* kr = get(v2, k)) kb.insert(kb.end(), kr->begin(), kr->end());
            Values res;
            for (size_t i : chosen)
                if (i < kb.size()) res.push_back(kb[i]);
            out.lists[k] = std::move(res);
        }
        handled.insert(group->begin(), group->end());
    }
    for (const auto& [k, v] : v1.lists) {
        if (out.lists.count(k) && handled.count(k)) continue;
        const Values* r = get(v2, k);
        if (!r) {
            out.lists[k] = v;
            continue;
        }
        if (handled.count(k)) continue;
        auto merged = key_add(v, *r, ordering_of(m, k));
        if (!merged) return unexpected(merged.error());
        out.lists[k] = *merged;
    }
    for (const auto& [k, v] : v2.lists)
        if (!get(v1, k) && !out.lists.count(k)) out.lists[k] = v;
    return out;
}

bool key_add_unmet(const Error& e) { return e.hint == kKeyAddUnmetHint; }

Result<AlgebraSpec> apply_migrations(AlgebraSpec spec, std::vector<Migration> migrations) {
    std::stable_sort(migrations.begin(), migrations.end(), [](const Migration& a, const Migration& b) {
        if (a.migrator_ts != b.migrator_ts) return a.migrator_ts < b.migrator_ts;
        return a.file < b.file;
    });
    for (const auto& m : migrations) {
        if (m.spec.lists.empty() && m.spec.zip_keys.empty() && m.spec.pin_run_as_build.empty() && m.operation.empty())
            continue;
        auto next = variant_add(spec, m);
        if (!next) {
            Error e = next.error();
            if (e.loc.file.empty()) e.loc.file = m.file;
            return unexpected(e);
        }
        spec = std::move(*next);
    }
    return spec;
}

Result<Migration> read_migration(const stdfs::path& file, const variant::Selection& sel, Diagnostics* diag) {
    std::string name = file.string();
    auto text = fs::read_file(file);
    if (!text) return unexpected(text.error());
    auto spec = variant::read_config_text(*text, name, sel, diag, {"__migrator", "migrator_ts"});
    if (!spec) return unexpected(spec.error());
    Migration m;
    m.file = name;  // conda-smithy breaks timestamp ties by the full path
    m.spec = AlgebraSpec::from(*spec);
    // __migrator and migrator_ts, read from the selected text as well.
    auto ns = recipe::selector_namespace(sel.platform.name(), sel.build_platform.name(), {}, sel.extra_environ);
    if (!ns) return unexpected(ns.error());
    auto selected = recipe::apply_selectors(recipe::split_selectors(*text), *ns, name, nullptr, nullptr, diag);
    if (!selected) return unexpected(selected.error());
    auto node = recipe::parse_yaml_tree(selected->text, name, selected->source_line, diag);
    if (!node) return unexpected(node.error());
    if (!node->is_mapping()) return m;
    if (const auto* ts = node->find("migrator_ts"); ts && ts->is_scalar()) {
        try {
            m.migrator_ts = std::stod(ts->scalar);
        } catch (const std::exception&) {
            return fail(SourceLoc{name, ts->line + 1}, "migrator_ts must be a number");
        }
    }
    const recipe::YamlNode* mig = node->find("__migrator");
    if (!mig || !mig->is_mapping()) return m;
    auto strings = [](const recipe::YamlNode* n) {
        Values out;
        if (!n) return out;
        if (n->is_scalar()) out.push_back(n->scalar);
        if (n->is_sequence())
            for (const auto& x : n->items)
                if (x.is_scalar()) out.push_back(x.scalar);
        return out;
    };
    if (const auto* op = mig->find("operation"); op && op->is_scalar()) m.operation = op->scalar;
    m.primary_key = strings(mig->find("primary_key"));
    m.additional_zip_keys = strings(mig->find("additional_zip_keys"));
    if (const auto* ord = mig->find("ordering"); ord && ord->is_mapping())
        for (const auto& [k, v] : ord->pairs) m.ordering[k.scalar] = strings(&v);
    return m;
}

std::string migration_sources(const std::vector<stdfs::path>& files, const stdfs::path& feedstock_dir) {
    // Folders in the order they first appear, each with its count.
    std::vector<std::pair<std::string, int>> dirs;
    for (const auto& f : files) {
        std::string d = f.parent_path().lexically_normal().string();
        auto it = std::find_if(dirs.begin(), dirs.end(), [&](const auto& x) { return x.first == d; });
        if (it == dirs.end()) dirs.emplace_back(d, 1);
        else ++it->second;
    }
    if (dirs.empty())
        return "migrations: none (" + (feedstock_dir / ".ci_support" / "migrations").lexically_normal().string() +
               " holds none)";
    std::string out = "migrations: ";
    for (size_t i = 0; i < dirs.size(); ++i)
        out += (i ? ", " : "") + std::to_string(dirs[i].second) + " from " + dirs[i].first;
    return out;
}

Result<std::vector<stdfs::path>> migration_files(const stdfs::path& feedstock_dir, const stdfs::path& pinning_file) {
    struct Info {
        stdfs::path path;
        std::optional<std::string> ts;
        std::string number = "\x01" "1";  // conda-smithy's int default never equals a string read from YAML
        bool use_local = false;
    };
    auto scan = [](const stdfs::path& dir) -> Result<std::map<std::string, Info>> {
        std::map<std::string, Info> out;
        std::error_code ec;
        if (!stdfs::is_directory(dir, ec)) return out;
        for (const auto& e : stdfs::directory_iterator(dir, ec)) {
            if (e.path().extension() != ".yaml" || !e.is_regular_file(ec)) continue;
            auto text = fs::read_file(e.path());
            if (!text) return unexpected(text.error());
            auto node = recipe::parse_yaml_tree(*text, e.path().string());
            if (!node) return unexpected(node.error());
            Info info;
            info.path = e.path();
            auto scalar = [](const recipe::YamlNode* n) { return n && n->is_scalar() ? n : nullptr; };
            if (const auto* ts = scalar(node->find("migrator_ts"))) info.ts = ts->scalar;
            if (const auto* mig = node->find("__migrator"); mig && mig->is_mapping()) {
                if (const auto* n = scalar(mig->find("migration_number"))) info.number = n->scalar;
                if (const auto* u = scalar(mig->find("use_local")))
                    info.use_local = str::lower(u->scalar) == "true";
            }
            out[e.path().filename().string()] = info;
        }
        return out;
    };
    auto local = scan(feedstock_dir / ".ci_support" / "migrations");
    if (!local) return unexpected(local.error());
    stdfs::path cfp_dir = pinning_file.parent_path() / "share" / "conda-forge" / "migrations";
    std::vector<stdfs::path> out;
    std::error_code ec;
    if (pinning_file.empty() || !stdfs::is_directory(cfp_dir, ec)) {
        for (const auto& [fn, info] : *local) out.push_back(info.path);
        return out;
    }
    auto cfp = scan(cfp_dir);
    if (!cfp) return unexpected(cfp.error());
    for (const auto& [fn, info] : *local) {
        if (info.use_local || !info.ts) {
            out.push_back(info.path);
            continue;
        }
        auto it = cfp->find(fn);
        if (it == cfp->end() || it->second.ts != info.ts) continue;  // the migration is over
        out.push_back(it->second.number == info.number ? it->second.path : info.path);
    }
    return out;
}

}  // namespace sf::feedstock

#include "plan/plan.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "types/match_spec.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::plan {

const char* to_string(Role r) {
    switch (r) {
        case Role::independent: return "independent";
        case Role::per_python: return "per-python";
        case Role::metapackage: return "metapackage";
    }
    return "?";
}

int BuildPlan::output_count() const {
    int n = 0;
    for (const auto& b : builds) n += static_cast<int>(b.steps.size());
    return n;
}

std::string python_of(const render::RenderedOutput& o) {
    if (const std::string* v = o.variant.get("python")) return types::minor_version(*v);
    return "";
}

namespace {

bool mentions_python(const std::vector<types::Dependency>& deps) {
    for (const auto& d : deps)
        if (d.name() == "python") return true;
    return false;
}

}  // namespace

std::string staging_python(const render::Requirements& r, const variant::Variant& v) {
    for (const auto& d : r.host) {
        if (d.name() != "python") continue;
        auto parts = str::split(std::string(str::trim(d.str())), ' ');
        if (parts.size() >= 2 && !types::minor_version(parts[1]).empty()) return types::minor_version(parts[1]);
        if (const std::string* pv = v.get("python")) return types::minor_version(*pv);
        return "";
    }
    return "";
}

namespace {

// An output inheriting a staging output packages its files, script or not.
bool is_metapackage(const render::RenderedOutput& o) {
    return !o.is_staging && o.script.empty() && o.script_lines.empty() && o.files.empty() && o.inherits.empty();
}

// Whether the output really varies with python: it is made once per Python
// here (another output of its name has another python), or its build string
// holds the py tag (pytorch's py312, conda-build's default string). An
// output that only builds with a Python in host (libtorch, whose string has
// no tag) is made once, whatever the python variants.
bool varies_with_python(const render::RenderedOutput& o, const std::vector<const render::RenderedOutput*>& outs) {
    std::string py = python_of(o);
    if (py.empty()) return false;
    for (const auto* other : outs)
        if (other->name == o.name && !python_of(*other).empty() && python_of(*other) != py) return true;
    std::string tag = "py";
    for (char c : py)
        if (c != '.') tag += c;
    for (const auto& part : str::split(o.build_string, '_'))
        if (part == tag) return true;
    return false;
}

constexpr std::size_t kMaxLabel = 64;

// `varying`: the keys whose values differ between this recipe's staging
// builds; without cuda or blas_impl, only they name a build (as `variants`
// shows them), so a label is not every key of the variant.
std::string label_of(const variant::Variant& v, bool cuda, const std::set<std::string>& varying) {
    std::string l;
    if (cuda) {
        l = "cuda" + v.value_or("cuda_compiler_version", "");
    } else if (v.has("cuda_compiler_version")) {
        l = "cpu";
    }
    if (const std::string* b = v.get("blas_impl")) l += (l.empty() ? "" : "_") + *b;
    if (l.empty()) {
        for (const auto& [k, val] : v.values) {
            if (k == "target_platform" || str::ends_with(k, "_compiler") || str::ends_with(k, "_compiler_version") ||
                !varying.count(k))
                continue;
            if (!l.empty()) l += "_";
            l += k + "-" + val;
        }
    }
    for (char& c : l)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
    // The label names a work dir (staging-LABEL) and logs: a long variant
    // value must not make a name over NAME_MAX; cut, and kept apart by a hash.
    if (l.size() > kMaxLabel) l = l.substr(0, kMaxLabel - 11) + "-" + hash::sha256(l).substr(0, 10);
    return l.empty() ? "default" : l;
}

}  // namespace

bool needs_cuda(const render::Requirements& r, const variant::Variant& v) {
    for (const auto* l : {&r.build, &r.host})
        for (const auto& d : *l) {
            std::string n = d.name();
            if (str::starts_with(n, "cuda-nvcc") || n == "nvcc" || str::starts_with(n, "nvcc_")) return true;
        }
    const std::string* cv = v.get("cuda_compiler_version");
    return cv && *cv != "None" && !cv->empty();
}

bool needs_python(const render::RenderedRecipe& rr) {
    auto in = [](const render::Requirements& r) {
        return mentions_python(r.build) || mentions_python(r.host) || mentions_python(r.run);
    };
    for (const auto& t : rr.tops)
        if (in(t.requirements)) return true;
    for (const auto& o : rr.outputs)
        if (in(o.requirements)) return true;
    return false;
}

Result<BuildPlan> make_plan(const render::RenderedRecipe& rr, const HostFacts& host, SkipUnavailable skip) {
    BuildPlan plan;
    plan.format = rr.format;
    plan.name = rr.name;
    plan.version = rr.version;
    plan.recipe_dir = rr.recipe_dir;
    plan.platform = rr.platform;
    plan.build_script = rr.build_script;
    plan.warnings = rr.warnings;
    std::vector<std::string> problems;
    std::set<std::string> varying;
    for (const auto& t : rr.tops)
        for (const auto& [k, val] : t.variant.values)
            if (rr.tops.front().variant.value_or(k, "") != val) varying.insert(k);
    for (const auto& t : rr.tops)
        for (const auto& [k, val] : rr.tops.front().variant.values)
            if (t.variant.value_or(k, "") != val) varying.insert(k);

    for (size_t t = 0; t < rr.tops.size(); ++t) {
        StagingBuild b;
        b.top_variant = static_cast<int>(t);
        b.variant = rr.tops[t].variant;
        b.requirements = rr.tops[t].requirements;
        b.sources = rr.tops[t].sources;
        b.stagings = rr.tops[t].stagings;
        std::vector<const render::RenderedOutput*> outs;
        for (const auto& o : rr.outputs)
            if (o.top_variant == static_cast<int>(t)) outs.push_back(&o);
        if (outs.empty()) continue;  // every output skipped by the recipe
        // The staging variant holds only the keys the top level uses; take
        // the rest of the common keys from an output for the label.
        b.needs_cuda = needs_cuda(b.requirements, b.variant);
        for (const auto* o : outs) b.needs_cuda = b.needs_cuda || needs_cuda(o->requirements, o->variant);
        // The label names the keys the outputs agree on (python and
        // output-local keys differ between outputs).
        variant::Variant lv;
        for (const auto& [k, val] : outs.front()->used) {
            bool same = k != "python";
            for (const auto* o : outs) {
                auto it = o->used.find(k);
                if (it != o->used.end() && it->second != val) same = false;
            }
            if (same) lv.set(k, val);
        }
        for (const auto* o : outs)
            for (const auto& k : {"cuda_compiler_version", "blas_impl"})
                if (!lv.has(k) && o->variant.has(k)) lv.set(k, *o->variant.get(k));
        b.label = label_of(lv, b.needs_cuda, varying);
        b.python = staging_python(b.requirements, b.variant);

        // Whole-build availability.
        std::string why;
        if (lv.value_or("blas_impl", "") == "mkl" && !host.mkl)
            why = "MKL not found (set MKLROOT or install MKL)";
        else if (b.needs_cuda && !host.nvcc)
            why = "nvcc not found (put the CUDA toolkit's bin/ on PATH or set CUDA_HOME)";
        else if (!b.python.empty() && !host.has_python(b.python))
            why = "python " + b.python + " not found (searched PATH and pyenv)";
        if (!why.empty()) {
            std::string what = "staging build " + b.label;
            if (skip == SkipUnavailable::yes)
                plan.skipped.push_back({what, "unavailable: " + why});
            else
                problems.push_back(what + " is unavailable: " + why);
            continue;
        }

        std::vector<Step> independent, per_python, meta;
        std::vector<std::string> py_order;
        for (const auto* o : outs) {
            Step s;
            s.output = *o;
            std::string py = python_of(*o);
            bool py_dependent = !py.empty() && (o->used.count("python") || mentions_python(o->requirements.host) ||
                                                mentions_python(o->requirements.run));
            // It builds with a Python, but is it made per Python?
            const bool made_per_python = py_dependent && varies_with_python(*o, outs);
            if (is_metapackage(*o)) {
                // Per-Python only when the output uses python (pytorch-cpu's
                // py312 build string): the variant always holds conda-build's
                // default python, which a C++ metapackage (gmock) never names.
                s.role = Role::metapackage;
                if (py_dependent) s.python = py;
            } else if (made_per_python) {
                s.role = Role::per_python;
                s.python = py;
            } else {
                // Built once: still with the Python its host env names.
                if (py_dependent) s.python = py;
                s.role = Role::independent;
            }
            if (!s.python.empty() && !host.has_python(s.python)) {
                std::string reason = "python " + s.python + " not found (searched PATH and pyenv)";
                if (skip == SkipUnavailable::yes)
                    plan.skipped.push_back({o->dist(), "unavailable: " + reason});
                else if (std::find(problems.begin(), problems.end(), reason) == problems.end())
                    problems.push_back(reason);
                continue;
            }
            (s.role == Role::independent ? independent : s.role == Role::per_python ? per_python : meta)
                .push_back(std::move(s));
        }
        // Pythons in the order their per-Python outputs come (metapackages
        // follow the same order).
        for (const auto* group : {&per_python, &meta})
            for (const auto& s : *group)
                if (!s.python.empty() && std::find(py_order.begin(), py_order.end(), s.python) == py_order.end())
                    py_order.push_back(s.python);
        b.steps = std::move(independent);
        auto by_python = [&](std::vector<Step>& from) {
            for (const auto& py : py_order)
                for (auto& s : from)
                    if (s.python == py) b.steps.push_back(s);
            for (auto& s : from)
                if (s.python.empty()) b.steps.push_back(s);
        };
        by_python(per_python);
        by_python(meta);
        plan.builds.push_back(std::move(b));
    }
    if (!problems.empty())
        return fail(SourceLoc{rr.recipe_dir + "/meta.yaml"}, str::join(problems, "; "),
                    "install what is missing, or pass --skip-unavailable to build the rest");
    if (plan.builds.empty()) {
        if (!plan.skipped.empty())
            return fail(SourceLoc{rr.recipe_dir + "/meta.yaml"},
                        "nothing to build: " + plan.skipped.front().what + " " + plan.skipped.front().reason);
        return fail(SourceLoc{rr.recipe_dir + "/meta.yaml"}, "nothing to build (every output is skipped)");
    }
    return plan;
}

std::string describe(const BuildPlan& p) {
    std::ostringstream os;
    for (const auto& b : p.builds) {
        os << "staging build " << b.label;
        if (!b.python.empty()) os << " (python " << b.python << ")";
        os << "\n";
        for (const auto& s : b.steps)
            os << "  " << s.output.dist() << "  [" << to_string(s.role)
               << (s.python.empty() ? "" : ", python " + s.python) << "]\n";
    }
    for (const auto& s : p.skipped) os << "skipped " << s.what << ": " << s.reason << "\n";
    return os.str();
}

}  // namespace sf::plan

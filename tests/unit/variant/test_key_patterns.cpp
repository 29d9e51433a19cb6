// The hand-written used-key matchers answer what conda-build's regexes
// answer: every line of every meta.yaml here, against the words of the line,
// parts of those words and the keys that matter most, under both rule sets.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "testutil.hpp"
#include "util/strings.hpp"
#include "variant/key_patterns.hpp"
#include "variant/used_vars.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

const std::vector<std::string> kFixedKeys = {
    "python", "numpy", "mpi", "c_compiler", "cxx_compiler", "c_stdlib", "c_stdlib_version", "cuda_compiler",
    "cuda_compiler_version", "fortran_compiler", "cdt_name", "blas_impl", "target_platform", "py", "x",
    "pin_run_as_build", "libprotobuf", "zlib", "cuda", "openssl"};

// Words of the line ([A-Za-z0-9_]+, '-' read as '_'), their halves and their
// prefixes up to an '_' (keys match inside words in some alternatives).
std::set<std::string> keys_for(std::string_view line) {
    std::set<std::string> keys(kFixedKeys.begin(), kFixedKeys.end());
    std::string w;
    auto flush = [&] {
        if (w.empty()) return;
        keys.insert(w);
        if (w.size() > 3) keys.insert(w.substr(0, w.size() / 2)), keys.insert(w.substr(w.size() / 2));
        for (size_t u = w.find('_', 1); u != std::string::npos; u = w.find('_', u + 1)) keys.insert(w.substr(0, u));
        w.clear();
    };
    for (char c : line) {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') w += c == '-' ? '_' : c;
        else flush();
    }
    flush();
    return keys;
}

struct Counts {
    long lines = 0, pairs = 0, matched = 0;
};

void compare(const variant::UsedVarScanner& sc, std::string_view line, const std::set<std::string>& keys, Counts& n) {
    if (!str::is_plain_ascii(line)) return;
    ++n.lines;
    for (const auto& k : keys) {
        for (auto scan : {variant::Scan::full, variant::Scan::selectors_only}) {
            bool hand = sc.matches_by_hand(k, line, scan);
            bool re = sc.matches_by_regex(k, line, scan);
            ++n.pairs;
            n.matched += re;
            if (hand != re) {
                INFO("line: [" << line << "] key: " << k << " scan: " << (scan == variant::Scan::full ? "full" : "sel"));
                CHECK(hand == re);
            }
        }
    }
}

}  // namespace

TEST_CASE("key patterns: the matchers equal the regexes on edge cases") {
    const std::vector<std::string> lines = {
        "{{ python }}", "{{python}}", "{{ python}}", "{{ python }", "{{ python.x }}", "{{ pythonic }}",
        "{{ pin_subpackage('python') }}", "{{ pin_subpackage( \"python\", max_pin='x') }}", "{{ pin_('python') }}",
        "{{ pin_Sub('python') }}", "{{ pin_compatible ('python') }}", "{ python }}", "{python} }}",
        "  - python", "  - python ", "  - python  # [linux]", "  - python[", "  -python", "- python", "  - python >=3",
        "  - py-thon", "  - py_thon", "  -  python\t[x]", "  - python #", "  - cuda-compiler",
        "{% if python %}", "{%if mpi%}", "{% elif mpi == 'x' %}", "{% elif mpi %", "{{% if mpi %}", "x{% if mpi %} %}",
        "{% if x %}{% if mpi %}", "{% if a %} mpi % x %}", "{% iffy mpi %}", "{% if mpi %}{% endif %}",
        "{% for x in mpi %}", "{% for x in mpis %}", "{% for x in  mpi.split(',') %}", "{% for x in[mpi] %}",
        "{% for min mpi %}", "{% set a = mpi %}", "{% set a = xmpi %}", "{% set a=mpi|x %}", "{% set mpi %}",
        "{% set a = b %} mpi %}", "x  # [mpi == 'a']", "x # [mpi]", "x #[mpi]", "x [mpi]", "[mpi]", "x  [ mpi ]",
        "x # [xmpi]", "x # [a or mpi<2]", "x # [mpi!=1]", "x # [mpi", "x # [a] [mpi]", "#x # [mpi]", "x #  [mpi]",
        "x\t# [mpi]", "x # [b]mpi]", "{{ compiler('c') }}", "{{compiler(\"c\")}}", "{{ compiler('c' }", "{{ stdlib('c') }}",
        "{{ compiler('cxx') }}", "{ compiler('c') { }", "{{ cdt('x') }}", "{cdt(", "{ cdt (", "", " ", "{", "{%", "%}"};
    for (auto rules : {variant::ScanRules::conda_build_24_11, variant::ScanRules::conda_build_26_7}) {
        variant::UsedVarScanner sc({}, rules);
        Counts n;
        for (const auto& l : lines) compare(sc, l, keys_for(l), n);
        CHECK(n.matched > 50);
    }
}

TEST_CASE("key patterns: the matchers equal the regexes on every recipe here") {
    std::vector<stdfs::path> roots = {test::source_dir() / "recipe", test::data_dir()};
    for (const char* d : {"golden-real", "golden", "rerender-real"})
        if (stdfs::exists(test::shared_dir() / d)) roots.push_back(test::shared_dir() / d);
    std::set<std::string> lines;  // distinct lines: the corpus repeats a lot
    for (const auto& root : roots)
        for (const auto& e : stdfs::recursive_directory_iterator(root))
            if (e.is_regular_file() && e.path().filename() == "meta.yaml")
                for (auto& l : str::split_lines(test::slurp(e.path()))) lines.insert(l);
    for (auto rules : {variant::ScanRules::conda_build_24_11, variant::ScanRules::conda_build_26_7}) {
        variant::UsedVarScanner sc({}, rules);
        Counts n;
        for (const auto& l : lines) compare(sc, l, keys_for(l), n);
        INFO(n.lines << " lines, " << n.pairs << " pairs, " << n.matched << " matches");
        CHECK(n.lines > 5000);
        CHECK(n.matched > 1000);
    }
}

TEST_CASE("key patterns: the matchers equal the regexes on random lines") {
    // Lines drawn from the characters the patterns care about, with a fixed seed.
    const std::string alphabet = "{}%[]#-_ \t'\"()=<>!|.,xmpinfsetlcdoru";
    const std::vector<std::string> words = {"mpi", "pin_subpackage(", "{%", "%}", "{{", "}}", " if ", "elif",
                                            " for ", " in ", " set ", "  - ", " # [", "compiler('c')", "cdt("};
    unsigned state = 12345;
    auto rnd = [&](unsigned n) {
        state = state * 1103515245u + 12345u;
        return (state >> 16) % n;
    };
    for (auto rules : {variant::ScanRules::conda_build_24_11, variant::ScanRules::conda_build_26_7}) {
        variant::UsedVarScanner sc({}, rules);
        Counts n;
        for (int i = 0; i < 50000; ++i) {
            std::string line;
            for (unsigned len = rnd(12); len > 0; --len)
                line += rnd(3) ? words[rnd(static_cast<unsigned>(words.size()))] : std::string(1, alphabet[rnd(static_cast<unsigned>(alphabet.size()))]);
            compare(sc, line, {"mpi", "mp", "c_compiler", "c_stdlib", "cdt_name", "x"}, n);
        }
        CHECK(n.matched > 500);
    }
}

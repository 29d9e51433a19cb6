#include <catch2/catch.hpp>

#include "types/entry_point.hpp"

using namespace sf;
using namespace sf::types;

TEST_CASE("parse_entry_point reads conda-build's name = module:func") {
    SECTION("spaces around the parts, dotted module and function") {
        auto ep = parse_entry_point("  my-tool.x = pkg.cli:App.main  ");
        REQUIRE(ep);
        CHECK(ep->command == "my-tool.x");
        CHECK(ep->module == "pkg.cli");
        CHECK(ep->func == "App.main");
        CHECK(ep->text == "  my-tool.x = pkg.cli:App.main  ");
    }
    SECTION("no spaces") {
        auto ep = parse_entry_point("t=m:f");
        REQUIRE(ep);
        CHECK(ep->command == "t");
    }
    SECTION("malformed ones are errors naming the text") {
        for (const char* bad : {"tool", "tool = mod", "tool = mod:", "= mod:f", "a/b = mod:f", "t = mod:f x",
                                "t = mo-d:f", ".. = m:f"}) {
            auto ep = parse_entry_point(bad);
            INFO(bad);
            REQUIRE_FALSE(ep);
            CHECK(ep.error().message.find(bad) != std::string::npos);
        }
    }
}

TEST_CASE("entry_point_script writes each tool's launcher") {
    auto ep = parse_entry_point("tool = pkg.cli:App.main");
    REQUIRE(ep);
    const std::string body =
        "# -*- coding: utf-8 -*-\nimport re\nimport sys\n\nfrom pkg.cli import App\n\nif __name__ == '__main__':\n";
    SECTION("conda-build: a blank line after the shebang (PY_TMPL starts with one), 4 spaces") {
        CHECK(entry_point_script(*ep, "/p/bin/python", LauncherStyle::conda_build) ==
              "#!/p/bin/python\n\n" + body +
                  "    sys.argv[0] = re.sub(r'(-script\\.pyw?|\\.exe)?$', '', sys.argv[0])\n"
                  "    sys.exit(App.main())\n");
    }
    SECTION("conda: no blank line") {
        CHECK(entry_point_script(*ep, "/p/bin/python3.12", LauncherStyle::conda) ==
              "#!/p/bin/python3.12\n" + body +
                  "    sys.argv[0] = re.sub(r'(-script\\.pyw?|\\.exe)?$', '', sys.argv[0])\n"
                  "    sys.exit(App.main())\n");
    }
    SECTION("rattler: tabs") {
        CHECK(entry_point_script(*ep, "/p/bin/python3.12", LauncherStyle::rattler_build) ==
              "#!/p/bin/python3.12\n" + body +
                  "\tsys.argv[0] = re.sub(r'(-script\\.pyw?|\\.exe)?$', '', sys.argv[0])\n"
                  "\tsys.exit(App.main())\n");
    }
    SECTION("a long or spaced interpreter path: the sh/Python polyglot (conda, rattler), verbatim for conda-build") {
        const std::string wrap_start = "#!/bin/sh\n'''exec' \"";
        std::string long_py = "/" + std::string(130, 'x') + "/bin/python";
        CHECK(entry_point_script(*ep, long_py, LauncherStyle::conda).rfind(wrap_start + long_py + "\" \"$0\" \"$@\" #'''\n# -*-", 0) == 0);
        CHECK(entry_point_script(*ep, "/a b/python", LauncherStyle::rattler_build).rfind(wrap_start + "/a b/python", 0) == 0);
        CHECK(entry_point_script(*ep, long_py, LauncherStyle::conda_build).rfind("#!" + long_py + "\n\n", 0) == 0);
        // conda: a shebang line of 127 bytes ("#!" + path + "\n") still fits; rattler: a path of 125 does.
        std::string p124 = "/" + std::string(123, 'y');
        CHECK(entry_point_script(*ep, p124, LauncherStyle::conda).rfind("#!" + p124 + "\n", 0) == 0);
        CHECK(entry_point_script(*ep, p124 + "y", LauncherStyle::conda).rfind(wrap_start, 0) == 0);
        CHECK(entry_point_script(*ep, p124 + "y", LauncherStyle::rattler_build).rfind("#!" + p124 + "y\n", 0) == 0);
        CHECK(entry_point_script(*ep, p124 + "yy", LauncherStyle::rattler_build).rfind(wrap_start, 0) == 0);
    }
}

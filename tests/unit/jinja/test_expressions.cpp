#include <catch2/catch.hpp>

#include "helpers.hpp"

using namespace sf::jinja;
using sf::jinja::test::eval_repr;
using sf::jinja::test::show;

TEST_CASE("literals") {
    SECTION("strings with both quotes and escapes") {
        CHECK(eval_repr("'single'") == "'single'");
        CHECK(eval_repr("\"double\"") == "'double'");
        CHECK(eval_repr(R"('a\nb\t\'q\' \\ \x41\u00e9')") == "\"a\\nb\\t'q' \\\\ A\xc3\xa9\"");
        CHECK(eval_repr(R"("it's")") == "\"it's\"");
        CHECK(eval_repr("'a' 'b'") == "'ab'");
        CHECK(eval_repr(R"('\d')") == "'\\\\d'");
    }
    SECTION("numbers") {
        CHECK(eval_repr("42") == "42");
        CHECK(eval_repr("1_000") == "1000");
        CHECK(eval_repr("3.25") == "3.25");
        CHECK(eval_repr("1e3") == "1000.0");
        CHECK(eval_repr("2.5e-3") == "0.0025");
        CHECK(eval_repr("-5") == "-5");
    }
    SECTION("constants in both spellings") {
        CHECK(eval_repr("True") == "True");
        CHECK(eval_repr("true") == "True");
        CHECK(eval_repr("False") == "False");
        CHECK(eval_repr("false") == "False");
        CHECK(eval_repr("None") == "None");
        CHECK(eval_repr("none") == "None");
    }
    SECTION("lists, tuples and dicts") {
        CHECK(eval_repr("[1, 'a', [2]]") == "[1, 'a', [2]]");
        CHECK(eval_repr("[1, 2,]") == "[1, 2]");
        CHECK(eval_repr("[]") == "[]");
        CHECK(eval_repr("(1, 2)") == "[1, 2]");
        CHECK(eval_repr("(1,)") == "[1]");
        CHECK(eval_repr("()") == "[]");
        CHECK(eval_repr("(1)") == "1");
        CHECK(eval_repr("{'a': 1, \"b\": [2]}") == "{'a': 1, 'b': [2]}");
        CHECK(eval_repr("{'a': 1, 'a': 2}") == "{'a': 2}");
        CHECK(eval_repr("{}") == "{}");
    }
}

TEST_CASE("arithmetic follows Python") {
    SECTION("basic operators") {
        CHECK(eval_repr("1 + 2 * 3") == "7");
        CHECK(eval_repr("(1 + 2) * 3") == "9");
        CHECK(eval_repr("7 / 2") == "3.5");
        CHECK(eval_repr("6 / 2") == "3.0");
        CHECK(eval_repr("7 // 2") == "3");
        CHECK(eval_repr("-7 // 2") == "-4");
        CHECK(eval_repr("7 % 3") == "1");
        CHECK(eval_repr("-7 % 3") == "2");
        CHECK(eval_repr("7 % -3") == "-2");
        CHECK(eval_repr("7.5 // 2") == "3.0");
        CHECK(eval_repr("2 ** 10") == "1024");
        CHECK(eval_repr("2 ** -1") == "0.5");
        CHECK(eval_repr("2 ** 3 ** 2") == "512");
        CHECK(eval_repr("-2 ** 2") == "-4");
        CHECK(eval_repr("1 + 2.5") == "3.5");
        CHECK(eval_repr("True + 1") == "2");
        CHECK(eval_repr("- (3)") == "-3");
        CHECK(eval_repr("+True") == "1");
        CHECK(eval_repr("10 - 2 - 3") == "5");
    }
    SECTION("sequences") {
        CHECK(eval_repr("'ab' + 'cd'") == "'abcd'");
        CHECK(eval_repr("'ab' * 3") == "'ababab'");
        CHECK(eval_repr("2 * 'ab'") == "'abab'");
        CHECK(eval_repr("'ab' * -1") == "''");
        CHECK(eval_repr("[1] + [2, 3]") == "[1, 2, 3]");
        CHECK(eval_repr("[0] * 3") == "[0, 0, 0]");
        CHECK(eval_repr("2 * [1, 2]") == "[1, 2, 1, 2]");
        CHECK(eval_repr("True * ['x']") == "['x']");
        CHECK(eval_repr("False * ['x']") == "[]");
        CHECK(eval_repr("(blas_impl == 'mkl') * ['mkl']") == "['mkl']");
    }
    SECTION("tilde concatenates str() of both sides") {
        CHECK(eval_repr("'py' ~ 312") == "'py312'");
        CHECK(eval_repr("1 ~ 2 ~ None") == "'12None'");
        CHECK(eval_repr("'a' ~ [1]") == "'a[1]'");
        CHECK(eval_repr("'v' ~ 1 + 1") == "ERROR: sel:1:9: unsupported operand type(s) for +: 'str' and 'int'");
        CHECK(eval_repr("'v' ~ (1 + 1)") == "'v2'");
        CHECK(eval_repr("'v' ~ 2 * 3") == "'v6'");
    }
    SECTION("errors") {
        CHECK(eval_repr("1 / 0") == "ERROR: sel:1:3: division by zero");
        CHECK(eval_repr("1 // 0") == "ERROR: sel:1:3: division by zero");
        CHECK(eval_repr("1 % 0") == "ERROR: sel:1:3: division by zero");
        CHECK(eval_repr("1.5 / 0.0") == "ERROR: sel:1:5: division by zero");
        CHECK(eval_repr("'a' - 1") == "ERROR: sel:1:5: unsupported operand type(s) for -: 'str' and 'int'");
        CHECK(eval_repr("'a' + 1") == "ERROR: sel:1:5: unsupported operand type(s) for +: 'str' and 'int'");
        CHECK(eval_repr("[1] * 'a'") == "ERROR: sel:1:5: unsupported operand type(s) for *: 'list' and 'str'");
        CHECK(eval_repr("-'a'") == "ERROR: sel:1:1: bad operand type for unary -: 'str'");
        CHECK(eval_repr("9223372036854775807 + 1") == "ERROR: sel:1:21: integer overflow in '+'");
        CHECK(eval_repr("2 ** 64") == "ERROR: sel:1:3: integer overflow in '**'");
        CHECK(eval_repr("'ab' * 100000000") == "ERROR: sel:1:6: string result is too long");
    }
}

TEST_CASE("comparisons") {
    SECTION("equality across types never fails") {
        CHECK(eval_repr("1 == 1.0") == "True");
        CHECK(eval_repr("1 == True") == "True");
        CHECK(eval_repr("'1' == 1") == "False");
        CHECK(eval_repr("'1' != 1") == "True");
        CHECK(eval_repr("None == None") == "True");
        CHECK(eval_repr("[1, 'a'] == [1, 'a']") == "True");
        CHECK(eval_repr("{'a': 1} == {'a': 1}") == "True");
    }
    SECTION("ordering") {
        CHECK(eval_repr("1 < 2") == "True");
        CHECK(eval_repr("2 <= 2.0") == "True");
        CHECK(eval_repr("'abc' < 'abd'") == "True");
        CHECK(eval_repr("[1, 2] < [1, 3]") == "True");
        CHECK(eval_repr("[1, 2] > [1]") == "True");
        CHECK(eval_repr("py >= 38") == "True");
    }
    SECTION("chained") {
        CHECK(eval_repr("1 < 2 < 3") == "True");
        CHECK(eval_repr("3 > 2 > 2") == "False");
        CHECK(eval_repr("1 < 3 > 2 == 2") == "True");
    }
    SECTION("ordering str against int is an error") {
        CHECK(eval_repr("'a' < 1") ==
              "ERROR: sel:1:5: '<' not supported between instances of 'str' and 'int'");
        CHECK(eval_repr("None >= 1") ==
              "ERROR: sel:1:6: '>=' not supported between instances of 'NoneType' and 'int'");
    }
    SECTION("in and not in") {
        CHECK(eval_repr("'b' in 'abc'") == "True");
        CHECK(eval_repr("'x' not in 'abc'") == "True");
        CHECK(eval_repr("2 in [1, 2]") == "True");
        CHECK(eval_repr("2.0 in [1, 2]") == "True");
        CHECK(eval_repr("3 not in [1, 2]") == "True");
        CHECK(eval_repr("'k' in {'k': 1}") == "True");
        CHECK(eval_repr("1 in {'k': 1}") == "False");
        CHECK(eval_repr("'12' in (cuda_compiler_version or '')") == "True");
        CHECK(eval_repr("1 in 'abc'") ==
              "ERROR: sel:1:3: 'in <string>' requires string as left operand, not int");
        CHECK(eval_repr("1 in 5") == "ERROR: sel:1:3: argument of type 'int' is not iterable");
    }
}

TEST_CASE("boolean operators return operands like Python") {
    CHECK(eval_repr("1 and 2") == "2");
    CHECK(eval_repr("0 and 2") == "0");
    CHECK(eval_repr("0 or 'x'") == "'x'");
    CHECK(eval_repr("'' or [] or None") == "None");
    CHECK(eval_repr("not 0") == "True");
    CHECK(eval_repr("not not 'a'") == "True");
    CHECK(eval_repr("not 1 == 2") == "True");
    CHECK(eval_repr("linux and not win") == "True");
    CHECK(eval_repr("win and undefined_name") == "False");  // short-circuit: never looked up
    CHECK(eval_repr("True or undefined_name") == "True");
    CHECK(eval_repr("1 or 0 and 0") == "1");  // and binds tighter than or
}

TEST_CASE("conditional expressions") {
    CHECK(eval_repr("'a' if linux else 'b'") == "'a'");
    CHECK(eval_repr("'a' if win else 'b'") == "'b'");
    CHECK(eval_repr("1 if win else 2 if linux else 3") == "2");
    CHECK(eval_repr("'a' if win") == "Undefined");
    CHECK(show("'a' if win") == "");
    CHECK(eval_repr("('x' if linux else 'y') ~ '!'") == "'x!'");
}

TEST_CASE("indexing and slicing") {
    SECTION("index") {
        CHECK(eval_repr("[1, 2, 3][0]") == "1");
        CHECK(eval_repr("[1, 2, 3][-1]") == "3");
        CHECK(eval_repr("'abc'[1]") == "'b'");
        CHECK(eval_repr("{'a': 1}['a']") == "1");
        CHECK(eval_repr("[[1, 2]][0][1]") == "2");
        CHECK(eval_repr("[1, 2].1") == "2");
        CHECK(eval_repr("[1][True]") == "ERROR: sel:1:4: list index out of range");
        CHECK(eval_repr("[1][3]") == "ERROR: sel:1:4: list index out of range");
        CHECK(eval_repr("[1]['a']") == "ERROR: sel:1:4: list indices must be integers, not str");
        CHECK(eval_repr("{'a': 1}['b']") == "ERROR: sel:1:9: key 'b' not found in dict");
        CHECK(eval_repr("5[0]") == "ERROR: sel:1:2: 'int' object is not subscriptable");
    }
    SECTION("slices") {
        CHECK(eval_repr("[1, 2, 3][1:]") == "[2, 3]");
        CHECK(eval_repr("[1, 2, 3][:-1]") == "[1, 2]");
        CHECK(eval_repr("[1, 2, 3][::-1]") == "[3, 2, 1]");
        CHECK(eval_repr("[1, 2, 3, 4, 5][::2]") == "[1, 3, 5]");
        CHECK(eval_repr("[1, 2, 3, 4, 5][4:1:-2]") == "[5, 3]");
        CHECK(eval_repr("'abcdef'[1:3]") == "'bc'");
        CHECK(eval_repr("'abcdef'[-2:]") == "'ef'");
        CHECK(eval_repr("'abc'[::-1]") == "'cba'");
        CHECK(eval_repr("'abc'[10:]") == "''");
        CHECK(eval_repr("'abc'[-10:2]") == "'ab'");
        CHECK(eval_repr("[1, 2][:]") == "[1, 2]");
        CHECK(eval_repr("'abc'[::0]") == "ERROR: sel:1:6: slice step cannot be zero");
        CHECK(eval_repr("'3.12.1'.split('.')[:2] | join('.')") == "'3.12'");
    }
}

TEST_CASE("attribute access: dict keys, then methods") {
    CHECK(eval_repr("os.environ.HOME") == "'/home/conda'");
    CHECK(eval_repr("os.environ.get('HOME')") == "'/home/conda'");
    CHECK(eval_repr("os.environ.get('X', 'd')") == "'d'");
    CHECK(eval_repr("os.environ.get('X')") == "None");
    CHECK(eval_repr("{'get': 5}.get") == "5");
    CHECK(eval_repr("'abc'.nope") == "ERROR: sel:1:7: 'str' object has no attribute 'nope'");
    CHECK(eval_repr("'abc'.nope()") == "ERROR: sel:1:7: 'str' object has no attribute 'nope'");
    CHECK(eval_repr("os.nope") == "ERROR: sel:1:4: 'dict' object has no attribute 'nope'");
    SECTION("a method without a call is a bound callable") {
        Context ctx = sf::jinja::test::strict_ctx();
        CHECK(sf::jinja::test::render_str("{% set up = 'abc'.upper %}{{ up() }}", ctx) == "ABC");
    }
}

TEST_CASE("function calls") {
    Context ctx = sf::jinja::test::strict_ctx();
    ctx.globals["compiler"] = Function([](const List& args, const KwArgs&) -> sf::Result<Value> {
        if (args.size() != 1) return sf::fail("compiler() takes exactly one argument");
        return Value(args[0].str() + "_compiler");
    });
    ctx.globals["pin"] = Function([](const List& args, const KwArgs& kwargs) -> sf::Result<Value> {
        std::string s = args.empty() ? "" : args[0].str();
        for (const auto& [k, v] : kwargs) s += "," + k + "=" + v.str();
        return Value(s);
    });
    ctx.globals["boom"] = Function([](const List&, const KwArgs&) -> sf::Result<Value> {
        throw std::runtime_error("kaboom");
    });
    CHECK(eval_repr("compiler('c')", ctx) == "'c_compiler'");
    CHECK(eval_repr("pin('lib', max_pin='x.x', exact=True)", ctx) == "'lib,max_pin=x.x,exact=True'");
    CHECK(eval_repr("pin('a',)", ctx) == "'a'");
    CHECK(eval_repr("compiler()", ctx) == "ERROR: sel:1:1: compiler() takes exactly one argument");
    CHECK(eval_repr("boom()", ctx) == "ERROR: sel:1:1: error in function call: kaboom");
    CHECK(eval_repr("pin(a=1, 2)", ctx) == "ERROR: sel:1:10: positional argument follows keyword argument");
    CHECK(eval_repr("py()", ctx) == "ERROR: sel:1:1: 'int' object is not callable");
    CHECK(eval_repr("range(3)", ctx) == "[0, 1, 2]");
    CHECK(eval_repr("range(1, 10, 4)", ctx) == "[1, 5, 9]");
    CHECK(eval_repr("range(3, 0, -1)", ctx) == "[3, 2, 1]");
    CHECK(eval_repr("dict(a=1, b='x')", ctx) == "{'a': 1, 'b': 'x'}");
}

TEST_CASE("string methods") {
    SECTION("replace") {
        CHECK(eval_repr("'1.2.3'.replace('.', '')") == "'123'");
        CHECK(eval_repr("'aaa'.replace('a', 'b', 2)") == "'bba'");
        CHECK(eval_repr("'ab'.replace('', '-')") == "'-a-b-'");
    }
    SECTION("split and rsplit") {
        CHECK(eval_repr("'a-b-c'.split('-')") == "['a', 'b', 'c']");
        CHECK(eval_repr("'a-b-c'.split('-', 1)") == "['a', 'b-c']");
        CHECK(eval_repr("'a-b-c'.rsplit('-', 1)") == "['a-b', 'c']");
        CHECK(eval_repr("'  a  b\\tc '.split()") == "['a', 'b', 'c']");
        CHECK(eval_repr("' a b c '.split(None, 1)") == "['a', 'b c ']");
        CHECK(eval_repr("' a b c '.rsplit(maxsplit=1)") == "[' a b', 'c']");
        CHECK(eval_repr("''.split()") == "[]");
        CHECK(eval_repr("''.split(',')") == "['']");
        CHECK(eval_repr("'a,,b'.split(',')") == "['a', '', 'b']");
        CHECK(eval_repr("'ab'.split('')") == "ERROR: sel:1:6: empty separator");
        CHECK(eval_repr("'a\\nb\\r\\nc'.splitlines()") == "['a', 'b', 'c']");
    }
    SECTION("join") {
        CHECK(eval_repr("', '.join(['a', 'b'])") == "'a, b'");
        CHECK(eval_repr("''.join('abc')") == "'abc'");
        CHECK(eval_repr("','.join([1])") ==
              "ERROR: sel:1:5: sequence item 0: expected str instance, int found");
    }
    SECTION("startswith and endswith") {
        CHECK(eval_repr("'1.2.3'.startswith('1.')") == "True");
        CHECK(eval_repr("'1.2.3'.endswith('.4')") == "False");
        CHECK(eval_repr("'lib.so'.endswith(('.so', '.dylib'))") == "True");
        CHECK(eval_repr("'x'.startswith(['a', 'x'])") == "True");
    }
    SECTION("case and whitespace") {
        CHECK(eval_repr("'MiXed'.lower()") == "'mixed'");
        CHECK(eval_repr("'MiXed'.upper()") == "'MIXED'");
        CHECK(eval_repr("'  x \\n'.strip()") == "'x'");
        CHECK(eval_repr("'  x '.lstrip()") == "'x '");
        CHECK(eval_repr("'  x '.rstrip()") == "'  x'");
        CHECK(eval_repr("'xxaxx'.strip('x')") == "'a'");
        CHECK(eval_repr("'hello world'.title()") == "'Hello World'");
        CHECK(eval_repr("'hELLO'.capitalize()") == "'Hello'");
    }
    SECTION("format") {
        CHECK(eval_repr("'{}.{}'.format(3, 12)") == "'3.12'");
        CHECK(eval_repr("'{1}-{0}'.format('a', 'b')") == "'b-a'");
        CHECK(eval_repr("'{name}={v}'.format(name='x', v=1)") == "'x=1'");
        CHECK(eval_repr("'{{literal}} {}'.format(1)") == "'{literal} 1'");
        CHECK(eval_repr("'{:>5}|{:<3}|{:^5}'.format('a', 'b', 'c')") == "'    a|b  |  c  '");
        CHECK(eval_repr("'{:03d} {:.2f} {!r}'.format(7, 3.14159, 'q')") == "\"007 3.14 'q'\"");
        CHECK(eval_repr("'{}'.format()") ==
              "ERROR: sel:1:6: replacement index 0 out of range for positional args tuple");
        CHECK(eval_repr("'{x}'.format()") == "ERROR: sel:1:7: format() has no keyword argument 'x'");
    }
    SECTION("searching and padding") {
        CHECK(eval_repr("'banana'.count('a')") == "3");
        CHECK(eval_repr("'banana'.find('n')") == "2");
        CHECK(eval_repr("'banana'.rfind('n')") == "4");
        CHECK(eval_repr("'banana'.find('x')") == "-1");
        CHECK(eval_repr("'banana'.index('x')") == "ERROR: sel:1:10: substring not found");
        CHECK(eval_repr("'7'.zfill(3)") == "'007'");
        CHECK(eval_repr("'-7'.zfill(4)") == "'-007'");
        CHECK(eval_repr("'123'.isdigit()") == "True");
        CHECK(eval_repr("'v1.2'.removeprefix('v')") == "'1.2'");
    }
    SECTION("percent formatting") {
        CHECK(eval_repr("'%s-%s' % ('a', 1)") == "'a-1'");
        CHECK(eval_repr("'%d%%' % 50") == "'50%'");
        CHECK(eval_repr("'%05.1f|%-4s|%x' % (3.14159, 'ab', 255)") == "'003.1|ab  |ff'");
        CHECK(eval_repr("'%(a)s' % {'a': 1}") == "'1'");
        CHECK(eval_repr("'%s %s' % ('a',)") == "ERROR: sel:1:9: not enough arguments for format string");
        CHECK(eval_repr("'%s' % ('a', 'b')") ==
              "ERROR: sel:1:6: not all arguments converted during string formatting");
    }
}

TEST_CASE("list and dict methods") {
    CHECK(eval_repr("['a', 'b'].index('b')") == "1");
    CHECK(eval_repr("[1, 2, 1].count(1)") == "2");
    CHECK(eval_repr("[1].index(5)") == "ERROR: sel:1:5: 5 is not in list");
    CHECK(eval_repr("{'a': 1, 'b': 2}.keys()") == "['a', 'b']");
    CHECK(eval_repr("{'a': 1, 'b': 2}.values()") == "[1, 2]");
    CHECK(eval_repr("{'a': 1}.items()") == "[['a', 1]]");
    CHECK(eval_repr("{'a': 1}.get('a', 0)") == "1");
    CHECK(eval_repr("{'a': 1}.get('z', 0)") == "0");
}

TEST_CASE("filters") {
    SECTION("string filters") {
        CHECK(eval_repr("'1.2' | replace('.', '')") == "'12'");
        CHECK(eval_repr("cuda_compiler_version | replace('.', '')") == "'124'");
        CHECK(eval_repr("'Ab' | lower") == "'ab'");
        CHECK(eval_repr("'Ab' | upper") == "'AB'");
        CHECK(eval_repr("'  x ' | trim") == "'x'");
        CHECK(eval_repr("12 | string") == "'12'");
        CHECK(eval_repr("12 | string | length") == "2");
        CHECK(eval_repr("'hello world' | title") == "'Hello World'");
        CHECK(eval_repr("'%s-%s' | format('a', 'b')") == "'a-b'");
    }
    SECTION("join") {
        CHECK(eval_repr("['a', 'b'] | join") == "'ab'");
        CHECK(eval_repr("['a', 'b'] | join(',')") == "'a,b'");
        CHECK(eval_repr("[1, 2] | join(d='+')") == "'1+2'");
        CHECK(eval_repr("['a', 'b'] | join(',') | upper") == "'A,B'");
    }
    SECTION("default") {
        CHECK(eval_repr("missing | default('d')") == "'d'");
        CHECK(eval_repr("missing | d('d')") == "'d'");
        CHECK(eval_repr("missing | default") == "''");
        CHECK(eval_repr("os.missing.deeper | default(1)") == "1");
        CHECK(eval_repr("missing['k'] | default(2)") == "2");
        CHECK(eval_repr("'' | default('e')") == "''");
        CHECK(eval_repr("'' | default('e', true)") == "'e'");
        CHECK(eval_repr("py | default(1)") == "312");
        CHECK(eval_repr("none | default('n', boolean=True)") == "'n'");
    }
    SECTION("numbers") {
        CHECK(eval_repr("'5' | int") == "5");
        CHECK(eval_repr("' 5 ' | int") == "5");
        CHECK(eval_repr("'5.7' | int") == "5");
        CHECK(eval_repr("'x' | int") == "0");
        CHECK(eval_repr("'x' | int(7)") == "7");
        CHECK(eval_repr("3.9 | int") == "3");
        CHECK(eval_repr("True | int") == "1");
        CHECK(eval_repr("'1.5' | float") == "1.5");
        CHECK(eval_repr("2 | float") == "2.0");
        CHECK(eval_repr("'x' | float") == "0.0");
        CHECK(eval_repr("-3 | abs") == "-3");  // filters bind tighter than unary minus
        CHECK(eval_repr("(-3) | abs") == "3");
        CHECK(eval_repr("2.567 | round(2)") == "2.57");
        CHECK(eval_repr("2.5 | round") == "3.0");
        CHECK(eval_repr("[1, 2, 3] | sum") == "6");
    }
    SECTION("sequences") {
        CHECK(eval_repr("[1, 2, 3] | length") == "3");
        CHECK(eval_repr("'abc' | count") == "3");
        CHECK(eval_repr("{'a': 1} | length") == "1");
        CHECK(eval_repr("[1, 2, 3] | first") == "1");
        CHECK(eval_repr("[1, 2, 3] | last") == "3");
        CHECK(eval_repr("'abc' | first") == "'a'");
        CHECK(eval_repr("[] | first") == "Undefined");
        CHECK(eval_repr("'ab' | list") == "['a', 'b']");
        CHECK(eval_repr("{'k': 1} | list") == "['k']");
        CHECK(eval_repr("[3, 1, 2] | sort") == "[1, 2, 3]");
        CHECK(eval_repr("['b', 'C', 'a'] | sort") == "['a', 'b', 'C']");
        CHECK(eval_repr("['b', 'C', 'a'] | sort(case_sensitive=true)") == "['C', 'a', 'b']");
        CHECK(eval_repr("[3, 1, 2] | sort(reverse=true)") == "[3, 2, 1]");
        CHECK(eval_repr("[1, 'a'] | sort") ==
              "ERROR: sel:1:12: '<' not supported between instances of 'str' and 'int'");
        CHECK(eval_repr("[1, 2, 1, 3, 2] | unique") == "[1, 2, 3]");
        CHECK(eval_repr("['a', 'A', 'b'] | unique") == "['a', 'b']");
        CHECK(eval_repr("[3, 1, 2] | min") == "1");
        CHECK(eval_repr("[3, 1, 2] | max") == "3");
        CHECK(eval_repr("[1, 2] | reverse") == "[2, 1]");
        CHECK(eval_repr("{'a': 1} | items") == "[['a', 1]]");
        CHECK(eval_repr("5 | length") == "ERROR: sel:1:5: object of type 'int' has no len()");
    }
    SECTION("chains and precedence") {
        CHECK(eval_repr("'a.b' | replace('.', '-') | upper ~ '!'") == "'A-B!'");
        CHECK(eval_repr("1 + [1, 2] | length") == "3");
        CHECK(eval_repr("'3.12'.split('.') | first | int + 1") == "4");
    }
}

TEST_CASE("tests with is") {
    CHECK(eval_repr("py is defined") == "True");
    CHECK(eval_repr("nope is defined") == "False");
    CHECK(eval_repr("nope is undefined") == "True");
    CHECK(eval_repr("nope is not defined") == "True");
    CHECK(eval_repr("os.environ.X is defined") == "False");
    CHECK(eval_repr("None is none") == "True");
    CHECK(eval_repr("1 is not none") == "True");
    CHECK(eval_repr("'a' is string") == "True");
    CHECK(eval_repr("1.5 is number") == "True");
    CHECK(eval_repr("4 is even") == "True");
    CHECK(eval_repr("9 is divisibleby 3") == "True");
    CHECK(eval_repr("9 is divisibleby(2)") == "False");
    CHECK(eval_repr("'a' is in ['a']") == "True");
    CHECK(eval_repr("nope is defined and nope > 1") == "False");
    CHECK(eval_repr("not nope is defined") == "True");
}

TEST_CASE("evaluate() offsets positions by Origin") {
    Context ctx = sf::jinja::test::strict_ctx();
    SECTION("first line and column") {
        auto r = evaluate("linux and nope", Origin{"meta.yaml", 42, 17}, ctx);
        REQUIRE_FALSE(r);
        CHECK(r.error().str() ==
              "meta.yaml:42:27: 'nope' is undefined (set it with '{% set nope = ... %}' or provide it as a variable)");
    }
    SECTION("later lines ignore first_col") {
        auto r = evaluate("linux and\n  nope", Origin{"meta.yaml", 42, 17}, ctx);
        REQUIRE_FALSE(r);
        CHECK(r.error().loc.line == 43);
        CHECK(r.error().loc.col == 3);
    }
    SECTION("syntax errors too") {
        auto r = evaluate("linux and", Origin{"m.yaml", 3, 20}, ctx);
        REQUIRE_FALSE(r);
        CHECK(r.error().str() == "m.yaml:3:29: unexpected end of input, expected an expression");
    }
    SECTION("trailing garbage") {
        auto r = evaluate("linux win", Origin{"m.yaml", 1, 1}, ctx);
        REQUIRE_FALSE(r);
        CHECK(r.error().str() == "m.yaml:1:7: unexpected name 'win', expected end of expression");
    }
    SECTION("Expression can be parsed once and evaluated many times") {
        auto e = Expression::parse("py >= 310", Origin{"sel"});
        REQUIRE(e);
        for (int py : {39, 310, 312}) {
            ctx.globals["py"] = py;
            auto v = e->evaluate(ctx);
            REQUIRE(v);
            CHECK(v->truthy() == (py >= 310));
        }
    }
}

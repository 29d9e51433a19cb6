#pragma once
// Early return for Result-returning code: SF_TRY(x, f()) declares x;
// SF_TRY_VOID(f()) returns f()'s error, if any.
#include "core/error.hpp"

#define SF_TRY(var, expr)                                        \
    auto var##_res = (expr);                                     \
    if (!var##_res) return ::sf::Unexpected<::sf::Error>{var##_res.error()}; \
    auto var = std::move(*var##_res)
#define SF_TRY_VOID(expr)                                                \
    do {                                                                 \
        auto _sf_r = (expr);                                             \
        if (!_sf_r) return ::sf::Unexpected<::sf::Error>{_sf_r.error()}; \
    } while (0)

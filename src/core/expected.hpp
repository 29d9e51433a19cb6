#pragma once
// A small expected<T, E> for parse and I/O edges (std::expected is C++23).
#include <cassert>
#include <utility>
#include <variant>

namespace sf {

template <class E>
struct Unexpected {
    E error;
};
template <class E>
Unexpected<std::decay_t<E>> unexpected(E&& e) { return {std::forward<E>(e)}; }

template <class T, class E>
class Expected {
public:
    Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}
    template <class U>
    Expected(Unexpected<U> u) : v_(std::in_place_index<1>, E(std::move(u.error))) {}

    bool has_value() const { return v_.index() == 0; }
    explicit operator bool() const { return has_value(); }
    T& value() & { assert(has_value()); return std::get<0>(v_); }
    const T& value() const& { assert(has_value()); return std::get<0>(v_); }
    T&& value() && { assert(has_value()); return std::get<0>(std::move(v_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    const E& error() const { assert(!has_value()); return std::get<1>(v_); }
    E& error() { assert(!has_value()); return std::get<1>(v_); }

private:
    std::variant<T, E> v_;
};

template <class E>
class Expected<void, E> {
public:
    Expected() = default;
    template <class U>
    Expected(Unexpected<U> u) : err_(E(std::move(u.error))), ok_(false) {}
    bool has_value() const { return ok_; }
    explicit operator bool() const { return ok_; }
    const E& error() const { assert(!ok_); return err_; }

private:
    E err_{};
    bool ok_ = true;
};

}  // namespace sf

#pragma once
// A real nginx for tests: serves a directory on 127.0.0.1 at a free port,
// from a config in a temp dir (no daemon, no master process, every path it
// writes under that dir), killed and reaped by the destructor. The access
// log (nginx's "combined" format) tells a test which requests came and
// what each was answered with. nginx missing: the test is SKIPPED.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "testskip.hpp"

namespace sf::test {

class Nginx {
public:
    // `root`: what is served at /; `server_extra`: more directives for the
    // server block (locations, rewrites).
    explicit Nginx(const std::filesystem::path& root, const std::string& server_extra = {}) {
        std::string bin = find_nginx();
        if (bin.empty()) skip("nginx is not installed (scripts/deps.sh installs Debian's nginx)");
        dir_ = std::filesystem::temp_directory_path() / ("sf-nginx-" + std::to_string(::getpid()) + "-" +
                                                         std::to_string(counter()++));
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_ / "tmp");
        for (int attempt = 0; attempt < 5 && pid_ <= 0; ++attempt) {
            port_ = free_port();
            write_conf(root, server_extra);
            start(bin);
        }
        if (pid_ <= 0) throw std::runtime_error("nginx did not start: " + read(dir_ / "error.log"));
    }
    ~Nginx() {
        if (pid_ > 0) {
            ::kill(pid_, SIGTERM);
            int st = 0;
            ::waitpid(pid_, &st, 0);
        }
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    Nginx(const Nginx&) = delete;
    Nginx& operator=(const Nginx&) = delete;

    int port() const { return port_; }
    std::string url(const std::string& path = "") const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

    // One access-log entry: the request line's path and the status.
    struct Hit {
        std::string method, path;
        int status = 0;
    };
    // Every request so far (nginx writes each line when the request ends).
    std::vector<Hit> hits() const {
        std::vector<Hit> out;
        std::istringstream in(read(dir_ / "access.log"));
        std::string line;
        while (std::getline(in, line)) {
            auto q = line.find('"'), q2 = line.find('"', q + 1);
            if (q == std::string::npos || q2 == std::string::npos) continue;
            std::istringstream req(line.substr(q + 1, q2 - q - 1));
            Hit h;
            req >> h.method >> h.path;
            std::istringstream rest(line.substr(q2 + 1));
            rest >> h.status;
            out.push_back(h);
        }
        return out;
    }
    std::string access_log() const { return read(dir_ / "access.log"); }

private:
    static int& counter() {
        static int n = 0;
        return n;
    }
    static std::string find_nginx() {
        for (const char* p : {"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"})
            if (::access(p, X_OK) == 0) return p;
        return {};
    }
    static std::string read(const std::filesystem::path& p) {
        std::ifstream in(p);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    // A port the kernel just handed out (a race with other processes is
    // possible: the constructor retries on another one).
    static int free_port() {
        int s = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
        socklen_t len = sizeof a;
        ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
        ::close(s);
        return ntohs(a.sin_port);
    }
    void write_conf(const std::filesystem::path& root, const std::string& extra) {
        const std::string d = dir_.string(), t = d + "/tmp";
        std::ofstream(dir_ / "nginx.conf")
            << "daemon off;\nmaster_process off;\nworker_processes 1;\npid " << d << "/nginx.pid;\n"
            << "error_log " << d << "/error.log;\nevents { worker_connections 64; }\nhttp {\n"
            << "  access_log " << d << "/access.log;\n"
            << "  client_body_temp_path " << t << "/body;\n  proxy_temp_path " << t << "/proxy;\n"
            << "  fastcgi_temp_path " << t << "/fcgi;\n  uwsgi_temp_path " << t << "/uwsgi;\n"
            << "  scgi_temp_path " << t << "/scgi;\n"
            << "  default_type application/octet-stream;\n"
            << "  server {\n    listen 127.0.0.1:" << port_ << ";\n    root " << std::filesystem::absolute(root).string()
            << ";\n" << extra << "\n  }\n}\n";
    }
    bool accepting() const {
        int s = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(port_));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        ::close(s);
        return ok;
    }
    void start(const std::string& bin) {
        const std::string d = dir_.string();
        pid_t pid = ::fork();
        if (pid == 0) {
            if (!std::freopen((d + "/stderr.log").c_str(), "w", stderr)) ::_exit(126);
            ::execl(bin.c_str(), bin.c_str(), "-p", d.c_str(), "-c", (d + "/nginx.conf").c_str(), "-e",
                    (d + "/error.log").c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        for (int i = 0; i < 200; ++i) {  // up to 10 s
            int st = 0;
            if (::waitpid(pid, &st, WNOHANG) == pid) return;  // exited: port taken or bad config
            if (accepting()) {
                pid_ = pid;
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
    }

    std::filesystem::path dir_;
    int port_ = 0;
    pid_t pid_ = -1;
};

}  // namespace sf::test

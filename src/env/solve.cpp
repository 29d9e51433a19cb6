#include "env/solve.hpp"

#include "archive/read.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::env {
namespace {

std::string file_url(const stdfs::path& p) { return "file://" + p.string(); }

void parse_specs(Candidate& c) {
    for (auto [list, out] : {std::pair{&c.record.depends, &c.depends}, std::pair{&c.record.constrains, &c.constrains}}) {
        for (const auto& s : *list) {
            auto m = types::MatchSpec::parse(s);
            if (!m) {
                c.broken = m.error().message;
                return;
            }
            out->push_back(std::move(*m));
        }
    }
}

// A record left out of the index: warned about, and remembered by name.
void skip(ChannelIndex& index, const std::string& name, const Error& why) {
    index.warnings.push_back(why.str() + " (record left out; the rest of the channel is used)");
    if (!name.empty()) index.skipped.try_emplace(name, why.str());
}

// One repodata.json into `index`. An invalid record is left out with a
// warning, as conda and rattler (which read records lazily) never fail a
// channel for a record no solve asks for; the file itself must parse.
Result<void> read_repodata(ChannelIndex& index, const stdfs::path& file, const std::string& channel_url,
                           int channel_index, const stdfs::path& subdir_dir) {
    auto text = fs::read_file(file);
    if (!text) return Unexpected<Error>{text.error()};
    auto rd = types::RepoData::parse(*text, file.string(), types::BadRecord::skip);
    if (!rd) return Unexpected<Error>{rd.error()};
    for (const auto& s : rd->skipped) skip(index, s.name, s.why);
    std::string subdir = subdir_dir.filename().string();
    for (auto& rec : rd->packages) {
        Candidate c;
        c.file = subdir_dir / rec.fn;
        rec.channel = channel_url + "/" + subdir;
        rec.url = rec.channel + "/" + rec.fn;
        if (rec.subdir.empty()) rec.subdir = subdir;
        // A record is for the subdir it is listed in: an osx-64 record in
        // linux-64/ would put a foreign binary in the prefix.
        if (rec.subdir != subdir) {
            skip(index, rec.name,
                 Error{SourceLoc{file.string()},
                       "'" + rec.fn + "' says subdir '" + rec.subdir + "' but is listed in '" + subdir + "'",
                       "the channel index is damaged; re-run `splitforge index` on the channel"});
            continue;
        }
        c.record = std::move(rec);
        c.channel_index = channel_index;
        parse_specs(c);
        index.packages.push_back(std::move(c));
    }
    return {};
}

}  // namespace

bool is_virtual(const std::string& name) { return str::starts_with(name, "__"); }

Result<ChannelIndex> load_channels(const std::vector<stdfs::path>& channels, const types::Platform& platform) {
    ChannelIndex index;
    int i = 0;
    for (const auto& ch : channels) {
        std::error_code ec;
        stdfs::path dir = stdfs::absolute(ch, ec).lexically_normal();
        if (!stdfs::is_directory(dir, ec)) return fail("channel " + ch.string() + ": no such directory");
        index.channels.push_back(ch.string());
        bool any = false;
        for (const std::string& sub : {platform.name(), std::string("noarch")}) {
            stdfs::path rd = dir / sub / "repodata.json";
            if (!stdfs::exists(rd, ec)) continue;
            any = true;
            if (auto ok = read_repodata(index, rd, file_url(dir), i, dir / sub); !ok) return unexpected(ok.error());
            if (platform.is_noarch()) break;
        }
        if (!any)
            return fail("channel " + ch.string() + ": no " + platform.name() + "/repodata.json or noarch/repodata.json",
                        "run `splitforge index " + ch.string() + "` first");
        ++i;
    }
    return index;
}

Result<Candidate> candidate_from_file(const stdfs::path& pkg) {
    std::error_code ec;
    stdfs::path abs = stdfs::absolute(pkg, ec).lexically_normal();
    auto md = archive::read_package_metadata(abs);
    if (!md) return Unexpected<Error>{md.error()};
    Candidate c;
    c.record = std::move(md->index);
    c.record.fn = abs.filename().string();
    c.record.url = file_url(abs);
    c.record.channel = file_url(abs.parent_path());
    c.file = abs;
    c.origin = Origin::file;
    c.channel_index = -1;
    parse_specs(c);
    if (!c.broken.empty()) return fail(abs.string() + ": invalid dependency in info/index.json: " + c.broken);
    return c;
}

}  // namespace sf::env

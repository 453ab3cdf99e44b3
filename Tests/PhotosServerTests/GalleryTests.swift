import BuiltInEditor
import Foundation
import OpenPhotos
import PhotosServer
import PhotosTestHarness
import PhotosTesting
import Synchronization
import Testing

/// The web gallery in a real headless Chromium (Debian's chromium and chromium-driver): sign in, a virtualized
/// timeline, the viewer, a Live Photo, favourite, edit and revert, upload, and a change made by another client
/// appearing without a reload. Screenshots are kept in .build/gallery-screenshots.
@Suite("Gallery in Chromium", .enabled(if: WebDriver.isAvailable, "needs chromium and chromium-driver (scripts/setup.sh)"), .heavy)
struct GalleryTests {
    static let screenshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/gallery-screenshots")
        .standardizedFileURL

    @Test func theGalleryWorksEndToEnd() async throws {
        let fixture = try ServerFixture(name: "Gallery")
        defer { fixture.library.remove() }
        let library = fixture.library
        // A Live Photo first in the timeline, then 300 photos every six hours.
        let card = library.scratch.appendingPathComponent("card")
        try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
        let liveID = "6E8C9C22-5F0B-4C43-9A0E-333333333333"
        try TestMedia.writeJPEG(
            to: card.appendingPathComponent("IMG_0001.JPG"), width: 64, height: 48,
            exif: TestEXIF(dateTimeOriginal: "2030:01:01 10:00:00", appleContentIdentifier: liveID))
        try TestMedia.writeMovie(to: card.appendingPathComponent("IMG_0001.MOV"), keys: ["com.apple.quicktime.content.identifier": liveID])
        let live = try #require(try library.library.importItems(at: [card]).importedLocalIdentifiers.first)
        let ids = try library.addImages(300, startingAt: Date(timeIntervalSince1970: 1_700_000_000), step: 6 * 3600)
        let token = try fixture.token("browser", .authorized)
        let port = Mutex(0)
        let server = Task { try await fixture.server.run { listening in port.withLock { $0 = listening } } }
        defer { server.cancel() }
        while port.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(20)) }
        let url = "http://127.0.0.1:\(port.withLock { $0 })/"

        let browser = try await WebDriver()
        do {
            try await run(browser, url: url, token: token, library: library, live: live, ids: ids)
            await browser.quit()
        } catch {
            try? await browser.screenshot(Self.screenshots.appendingPathComponent("failure.png"))
            await browser.quit()
            throw error
        }
    }

    /// iOS 27's metadata in the viewer, with the keyboard: a rating by digit, a caption, keywords added and removed;
    /// then the search box finds the photo by them (and by nothing else), and Escape brings the library back.
    @Test func ratingCaptionKeywordsAndSearchInTheViewer() async throws {
        let fixture = try ServerFixture(name: "DescribeGallery")
        defer { fixture.library.remove() }
        let ids = try fixture.library.addImages(30, startingAt: Date(timeIntervalSince1970: 1_700_000_000), step: 3600)
        // A burst of three, older than the rest: one tile, the others stepped through in the viewer.
        let card = fixture.library.scratch.appendingPathComponent("burst")
        try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
        for index in 0..<3 {
            try TestMedia.writeJPEG(
                to: card.appendingPathComponent("IMG_10\(index).JPG"), width: 64, height: 48,
                exif: TestEXIF(dateTimeOriginal: "2010:05:01 10:00:0\(index)", appleBurstUUID: "BURST-IN-GALLERY"))
        }
        let burst = try fixture.library.library.importItems(at: [card]).importedLocalIdentifiers
        #expect(burst.count == 3)
        let token = try fixture.token("browser", .authorized)
        let port = Mutex(0)
        let server = Task { try await fixture.server.run { listening in port.withLock { $0 = listening } } }
        defer { server.cancel() }
        while port.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(20)) }

        let browser = try await WebDriver()
        do {
            try await browser.open("http://127.0.0.1:\(port.withLock { $0 })/")
            try await browser.signIn(token: token)
            try await browser.wait(20, "the timeline", until: "return document.body.dataset.ready === 'true'")
            // Newest first: the first tile is the last photo added.
            let newest = ids.last!
            try await browser.run("document.querySelector('.tile').focus()")
            try await browser.press("\u{E007}")  // Enter opens the viewer
            try await browser.wait(10, "the viewer", until: "return !document.querySelector('#viewer').hidden")
            try await browser.press("4")
            try await eventually("the rating") { asset(newest, fixture.library)?.rating == .four }
            try await browser.wait(10, "four stars", until: "return document.querySelectorAll('#rating button.on').length === 4")
            #expect(
                try await browser.run("return document.querySelector('#rating [data-rating=\"4\"]').getAttribute('aria-pressed')") as? String
                    == "true")

            try await browser.click("[data-viewer=info]")
            try await browser.type("Ferry to Sylt", into: "#caption")
            try await browser.click("#keyword")  // leaving the caption saves it
            try await eventually("the caption") { asset(newest, fixture.library)?.extendedMetadata.caption == "Ferry to Sylt" }
            try await browser.type("island\u{E007}", into: "#keyword")
            try await browser.type("wind\u{E007}", into: "#keyword")
            try await eventually("two keywords") { asset(newest, fixture.library)?.extendedMetadata.keywords == ["island", "wind"] }
            try await browser.wait(10, "the keywords listed", until: "return document.querySelectorAll('#keywords li').length === 2")
            try await browser.click("#keywords [data-keyword=wind]")
            try await eventually("one keyword") { asset(newest, fixture.library)?.extendedMetadata.keywords == ["island"] }
            // Digits typed into the keyword field are text, not a rating.
            try await browser.type("2", into: "#keyword")
            try await Task.sleep(for: .milliseconds(300))
            #expect(asset(newest, fixture.library)?.rating == .four)
            #expect(try await unnamed(browser) == [], "controls without a name")
            try await browser.screenshot(Self.screenshots.appendingPathComponent("13-describe.png"))
            try await browser.click("[data-viewer=close]")

            // The search box: by caption word and keyword (the last word as begun), nothing else; Escape clears it.
            try await browser.type("sylt isl", into: "#search")
            try await browser.wait(
                10, "one result",
                until:
                    "return document.querySelector('#view-title').textContent.includes('sylt isl') && document.querySelectorAll('.tile').length === 1"
            )
            #expect(try await browser.run("return document.querySelector('.tile').dataset.key") as? String == urlID(newest))
            #expect(try await browser.run("return document.querySelector('.tile').getAttribute('aria-label').includes('4 stars')") as? Bool == true)
            try await browser.screenshot(Self.screenshots.appendingPathComponent("14-search.png"))
            try await browser.type("x", into: "#search")
            try await browser.wait(
                10, "nothing found", until: "return !document.querySelector('#empty').hidden && document.querySelectorAll('.tile').length === 0")
            try await browser.press("\u{E00C}")  // Escape
            try await browser.wait(
                10, "the library again", until: "return document.querySelector('#view-title').hidden && document.querySelectorAll('.tile').length > 1"
            )

            // The burst is one tile at the end; Shift+arrows step through its photos in the viewer.
            try await browser.run("window.scrollTo(0, document.body.scrollHeight)")
            try await browser.wait(
                10, "the burst's tile",
                until: "return [...document.querySelectorAll('.tile')].some(t => t.getAttribute('aria-label').endsWith(', burst'))")
            let tiles = try await browser.run(
                "return [...document.querySelectorAll('.tile')].filter(t => t.getAttribute('aria-label').endsWith(', burst')).length")
            #expect(tiles as? Int == 1)
            try await browser.run("[...document.querySelectorAll('.tile')].find(t => t.getAttribute('aria-label').endsWith(', burst')).click()")
            try await browser.wait(10, "the viewer", until: "return !document.querySelector('#viewer').hidden")
            let shown = try await browser.run("return new URL(document.querySelector('#stage img').src).pathname") as? String
            try await browser.press("\u{E008}\u{E014}")  // Shift + right arrow
            try await browser.wait(
                10, "the next photo of the burst", until: "return !document.querySelector('#stage img').src.includes(\"\(shown ?? "")\")")
            let next = try await browser.run("return new URL(document.querySelector('#stage img').src).pathname") as? String
            #expect(burst.map(urlID).contains { next?.contains($0) == true }, "\(next ?? "")")
            await browser.quit()
        } catch {
            try? await browser.screenshot(Self.screenshots.appendingPathComponent("failure-describe.png"))
            await browser.quit()
            throw error
        }
    }

    /// An iPhone's HEVC movie, which Chromium cannot play: `photos serve`'s own worker makes its web rendering, and
    /// the viewer plays that.
    @Test func anHEVCMoviePlaysThroughItsWebRendering() async throws {
        let fixture = try ServerFixture(name: "HEVCGallery")
        defer { fixture.library.remove() }
        let movie = fixture.library.scratch.appendingPathComponent("IMG_0002.MOV")
        try TestMedia.writeHEVCMovie(to: movie, width: 640, height: 360, seconds: 2)
        var created: String?
        try fixture.library.library.performChangesAndWait {
            created = PHAssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: movie)?.placeholderForCreatedAsset?.localIdentifier
        }
        let id = try #require(created)
        let token = try fixture.token("browser", .authorized)
        let port = Mutex(0)
        let server = Task { try await fixture.server.run { listening in port.withLock { $0 = listening } } }
        defer { server.cancel() }
        while port.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(20)) }
        // The server's worker was told of the commit at its start: the rendering comes without anyone asking.
        try await eventually("the web rendering") { asset(id, fixture.library).flatMap(LibraryWebVideo.init)?.rendering != nil }

        let browser = try await WebDriver()
        do {
            try await browser.open("http://127.0.0.1:\(port.withLock { $0 })/")
            try await browser.signIn(token: token)
            try await browser.wait(20, "the timeline", until: "return document.body.dataset.ready === 'true'")
            // The movie itself does not play here (else this test would prove nothing).
            try await browser.run(
                """
                const v = document.createElement('video'); v.id = 'original'; v.muted = true;
                v.src = '/v1/assets/\(urlID(id))/resources/video'; document.body.append(v); v.play().catch(() => {});
                """)
            try await browser.wait(
                20, "the HEVC movie to fail", until: "const v = document.querySelector('#original'); return !!v.error || v.currentTime > 0")
            // An error, or the sound alone (Chromium plays the tracks it can): no picture.
            let original =
                try await browser.run(
                    "const v = document.querySelector('#original'); return JSON.stringify({error: !!v.error, width: v.videoWidth})") as? String
            #expect(original == #"{"error":true,"width":0}"# || original == #"{"error":false,"width":0}"#, "Chromium played HEVC: \(original ?? "")")
            try await browser.run("document.querySelector('#original').remove()")
            try await browser.click(".tile[data-key=\"\(urlID(id))\"]")
            try await browser.run("const v = document.querySelector('#stage video'); if (v) { v.muted = true; v.play().catch(() => {}); }")
            try await browser.wait(
                20, "the web rendering to play",
                until: "const v = document.querySelector('#stage video'); return !!v && !v.error && v.currentTime > 0 && v.videoWidth === 640")
            try await browser.screenshot(Self.screenshots.appendingPathComponent("11-hevc-movie.png"))
            await browser.quit()
        } catch {
            try? await browser.screenshot(Self.screenshots.appendingPathComponent("failure-hevc.png"))
            await browser.quit()
            throw error
        }
    }

    /// An add-only token signed in to a blank page. It now gets a page that says what it can do (add, not see) with
    /// the upload control, and no library views; an empty library says what belongs there; no tile claims a grid
    /// role without rows (axe-core's critical finding).
    @Test func anAddOnlyTokenAndAnEmptyLibrarySayWhatTheyCanDo() async throws {
        let fixture = try ServerFixture(name: "AddOnlyGallery")
        defer { fixture.library.remove() }
        let adder = try fixture.token("camera", .authorized, accessLevel: .addOnly)
        let owner = try fixture.token("owner", .authorized)
        let port = Mutex(0)
        let server = Task { try await fixture.server.run { listening in port.withLock { $0 = listening } } }
        defer { server.cancel() }
        while port.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(20)) }
        for (token, access) in [(adder, "addOnly"), (owner, "")] {
            let browser = try await WebDriver(width: 1000, height: 700)
            do {
                try await browser.open("http://127.0.0.1:\(port.withLock { $0 })/")
                try await browser.signIn(token: token)
                try await browser.wait(20, "the page", until: "return document.body.dataset.ready === 'true'")
                let text =
                    try await browser.run("return document.querySelector('#empty').hidden ? '' : document.querySelector('#empty').textContent")
                    as? String ?? ""
                if access == "addOnly" {
                    #expect(try await browser.run("return document.body.dataset.access") as? String == "addOnly")
                    #expect(text.contains("can add photos and videos"), "\(text)")
                    #expect(try await browser.run("return document.querySelector('nav').hidden") as? Bool == true)
                    #expect(try await browser.run("return document.querySelector('#search').hidden") as? Bool == true)
                    #expect(try await browser.run("return document.querySelector('.upload').hidden") as? Bool == false)
                    try await browser.screenshot(Self.screenshots.appendingPathComponent("9-add-only.png"))
                } else {
                    #expect(text.contains("No photos yet") && text.contains("Upload"), "\(text)")
                    #expect(try await browser.run("return document.querySelectorAll('[role=grid], [role=gridcell]').length") as? Int == 0)
                    try await browser.screenshot(Self.screenshots.appendingPathComponent("9-empty-library.png"))
                }
                await browser.quit()
            } catch {
                await browser.quit()
                throw error
            }
        }
    }

    /// The timeline is a dense grid: days flow on in a row, each labelled above its first photo (it was one day per
    /// row, most of the width empty); the year menu jumps to a year's photos.
    @Test func daysFlowOnAndTheYearMenuJumps() async throws {
        let fixture = try ServerFixture(name: "Years")
        defer { fixture.library.remove() }
        // Two photos a day for 10 days in 2023, and 10 days in 2025.
        let old = try fixture.library.addImages(20, startingAt: Date(timeIntervalSince1970: 1_672_574_400), step: 12 * 3600)
        _ = try fixture.library.addImages(20, startingAt: Date(timeIntervalSince1970: 1_736_251_200), step: 12 * 3600)
        let token = try fixture.token("owner", .authorized)
        let port = Mutex(0)
        let server = Task { try await fixture.server.run { listening in port.withLock { $0 = listening } } }
        defer { server.cancel() }
        while port.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(20)) }
        let browser = try await WebDriver(width: 1280, height: 900)
        do {
            try await browser.open("http://127.0.0.1:\(port.withLock { $0 })/")
            try await browser.signIn(token: token)
            try await browser.wait(
                20, "the timeline", until: "return document.body.dataset.ready === 'true' && !document.querySelector('#year').hidden")
            // Several day labels side by side: the first row holds more than one day.
            let firstRowLabels = try await browser.run(
                "const h = [...document.querySelectorAll('.header')]; const top = Math.min(...h.map(x => x.offsetTop)); return h.filter(x => x.offsetTop === top).length"
            )
            #expect((firstRowLabels as? Int ?? 0) >= 2, "day labels in the first row: \(String(describing: firstRowLabels))")
            let years = try await browser.run("return [...document.querySelectorAll('#year option')].map(o => o.value)") as? [String]
            #expect(years == ["", "2025", "2024", "2023"], "\(years ?? [])")
            try await browser.run("const s = document.querySelector('#year'); s.value = '2023'; s.dispatchEvent(new Event('change'))")
            let newest2023 = urlID(old.last!)
            do {
                // As long as the first page may take: on a loaded machine the server in this test process shares two
                // cooperative threads with the rest of the suite (the grid was right, 10 s late, in a loaded run).
                try await browser.wait(
                    20, "2023's newest photo first", until: "return document.querySelector('.tile')?.dataset.key === '\(newest2023)'")
            } catch {
                let info = try await browser.run(
                    "return JSON.stringify({first: document.querySelector('.tile')?.dataset.key, tiles: document.querySelectorAll('.tile').length, keys: [...document.querySelectorAll('.tile')].slice(0,5).map(t => t.dataset.key), year: document.querySelector('#year').value, scrollY: window.scrollY, h: document.querySelector('#grid-content').style.height})"
                )
                // What the page showed instead, for the log (this wait once timed out on a loaded machine).
                Issue.record("the grid after the jump to 2023: \(info ?? "nothing"); 2023's photos: \(old.map(urlID))")
                throw error
            }
            #expect(try await browser.run("return document.querySelectorAll('.tile').length") as? Int == 20)
            try await browser.screenshot(Self.screenshots.appendingPathComponent("10-years.png"))
            await browser.quit()
        } catch {
            await browser.quit()
            throw error
        }
    }

    /// On a phone-sized screen (390 × 844 CSS pixels): nothing wider than the screen, every control named for
    /// assistive technology, images with alternative text, text with enough contrast, and the timeline, the viewer
    /// and back reachable with the keyboard alone.
    @Test func onAPhoneItFitsIsLabelledAndWorksWithTheKeyboard() async throws {
        let fixture = try ServerFixture(name: "Phone")
        defer { fixture.library.remove() }
        _ = try fixture.library.addImages(40, startingAt: Date(timeIntervalSince1970: 1_700_000_000), step: 3600)
        let token = try fixture.token("phone", .authorized)
        let port = Mutex(0)
        let server = Task { try await fixture.server.run { listening in port.withLock { $0 = listening } } }
        defer { server.cancel() }
        while port.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(20)) }

        let browser = try await WebDriver(width: 390, height: 844, phone: 3)
        do {
            try await browser.open("http://127.0.0.1:\(port.withLock { $0 })/")
            try await browser.wait(10, "the sign-in form", until: "return !document.querySelector('#sign-in').hidden")
            #expect(try await unnamed(browser) == [], "controls of the sign-in form without a name")
            try await browser.type(token, into: "#token")
            try await browser.click("#sign-in button[type=submit]")
            try await browser.wait(20, "the timeline", until: "return document.body.dataset.ready === 'true'")
            try await browser.wait(
                10, "thumbnails", until: "return [...document.querySelectorAll('.tile img')].some(i => i.complete && i.naturalWidth > 0)")
            try await browser.screenshot(Self.screenshots.appendingPathComponent("7-phone.png"))

            // Fits: the phone's width, no horizontal scrolling, tiles within the screen, at least two per row, and
            // thumbnails asked for at the screen's pixel ratio.
            #expect(try await browser.run("return [window.innerWidth, window.devicePixelRatio]") as? [Int] == [390, 3])
            #expect(try await browser.run("return document.documentElement.scrollWidth <= window.innerWidth") as? Bool == true)
            let widest = try await browser.run(
                "return Math.max(...[...document.querySelectorAll('.tile')].map(t => t.getBoundingClientRect().right))")
            #expect(((widest as? Double) ?? Double((widest as? Int) ?? 10_000)) <= 390)
            let asked = try await browser.run(
                "const i = document.querySelector('.tile img'); return [Number(new URL(i.src).searchParams.get('size').split('x')[1]), i.closest('.tile').getBoundingClientRect().height]"
            )
            let numbers = (asked as? [Any] ?? []).map { ($0 as? Double) ?? Double(($0 as? Int) ?? 0) }
            #expect(numbers.count == 2 && numbers[0] >= numbers[1] * 3 - 1, "thumbnail height and tile height at 3×: \(numbers)")
            let firstRow = try await browser.run(
                "const t = [...document.querySelectorAll('.tile')]; const top = t[0].getBoundingClientRect().top; return t.filter(x => x.getBoundingClientRect().top === top).length"
            )
            #expect((firstRow as? Int ?? 0) >= 2, "tiles in the first row: \(String(describing: firstRow))")

            // Labelled: every control has a name, every image an alt attribute.
            #expect(try await unnamed(browser) == [], "controls without a name")
            #expect(try await browser.run("return [...document.querySelectorAll('img')].filter(i => !i.hasAttribute('alt')).length") as? Int == 0)

            // Contrast of the page's text on its background (WCAG AA: 4.5:1).
            let contrast = try await browser.run(
                """
                const rgb = c => c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number);
                const lum = c => { const [r, g, b] = rgb(c).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
                const style = getComputedStyle(document.body);
                let background = style.backgroundColor;
                if (background === 'rgba(0, 0, 0, 0)') background = getComputedStyle(document.documentElement).backgroundColor;
                if (background === 'rgba(0, 0, 0, 0)') background = 'rgb(255, 255, 255)';
                const [a, b] = [lum(style.color), lum(background)].sort((x, y) => y - x);
                return (a + 0.05) / (b + 0.05);
                """)
            let ratio = (contrast as? Double) ?? Double((contrast as? Int) ?? 0)
            #expect(ratio >= 4.5, "text contrast \(ratio):1")

            // The keyboard alone: a tile opens the viewer with Enter, Escape closes it and gives the focus back.
            try await browser.run("document.querySelector('.tile').focus()")
            let key = try await browser.run("return document.activeElement.dataset.key") as? String
            try await browser.press("\u{E007}")  // Enter
            try await browser.wait(10, "the viewer", until: "return !document.querySelector('#viewer').hidden")
            #expect(try await browser.run("return document.querySelector('#viewer').contains(document.activeElement)") as? Bool == true)
            try await browser.screenshot(Self.screenshots.appendingPathComponent("8-phone-viewer.png"))
            // The editor goes below the photo, not over it (it covered the photo and the crop box).
            try await browser.click("[data-viewer=edit]")
            try await browser.wait(10, "the editor", until: "return !document.querySelector('#editor').hidden")
            try await browser.click("[data-edit=crop]")
            let overlap = try await browser.run(
                "const s = document.querySelector('.stage').getBoundingClientRect(); const e = document.querySelector('#editor').getBoundingClientRect(); return [s.top, s.bottom, e.top, s.height]"
            )
            let edges = (overlap as? [Any] ?? []).map { ($0 as? Double) ?? Double(($0 as? Int) ?? -1) }
            #expect(edges.count == 4 && edges[2] >= edges[1] - 1 && edges[3] >= 844 * 0.35, "stage and editor: \(edges)")
            try await browser.screenshot(Self.screenshots.appendingPathComponent("8b-phone-editor.png"))
            try await browser.click("[data-edit=cancel]")
            try await browser.wait(10, "the editor to close", until: "return document.querySelector('#editor').hidden")
            // Closing the editor gives the focus back to its button, so the keys reach the viewer at once.
            #expect(try await browser.run("return document.activeElement.dataset.viewer") as? String == "edit")
            // Escape in the editor cancels the edit; the next one closes the viewer.
            try await browser.click("[data-viewer=edit]")
            try await browser.wait(10, "the editor", until: "return !document.querySelector('#editor').hidden")
            try await browser.run("document.querySelector('#editor input, #editor button').focus()")
            try await browser.press("\u{E00C}")  // Escape
            try await browser.wait(10, "the editor to close", until: "return document.querySelector('#editor').hidden")
            #expect(try await browser.run("return document.querySelector('#viewer').hidden") as? Bool == false)
            try await browser.press("\u{E00C}")  // Escape
            try await browser.wait(10, "the viewer to close", until: "return document.querySelector('#viewer').hidden")
            #expect(try await browser.run("return document.activeElement.dataset.key") as? String == key)
            await browser.quit()
        } catch {
            try? await browser.screenshot(Self.screenshots.appendingPathComponent("failure-phone.png"))
            await browser.quit()
            throw error
        }
    }

    /// The visible controls (buttons, links, fields) that have no accessible name: no text, `aria-label`,
    /// `aria-labelledby`, `title` or label.
    func unnamed(_ browser: WebDriver) async throws -> [String] {
        let names = try await browser.run(
            """
            return [...document.querySelectorAll('button, a[href], input:not([type=hidden]), select, textarea, [role=button]')]
              .filter(e => e.offsetParent !== null)
              .filter(e => !(e.textContent.trim() || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') || e.title
                || (e.labels && e.labels.length) || e.querySelector('img[alt]:not([alt=""])')))
              .map(e => e.outerHTML.slice(0, 80));
            """)
        return names as? [String] ?? ["(the audit did not run)"]
    }

    func asset(_ id: String, _ library: TestLibrary) -> PHAsset? {
        PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options()).firstObject
    }

    /// The built-in editor's recipe of an asset, read back as an editor reads it.
    func recipe(_ id: String, _ library: TestLibrary) async -> PhotoEditRecipe? {
        guard let asset = asset(id, library) else { return nil }
        let options = PHContentEditingInputRequestOptions()
        options.canHandleAdjustmentData = { PhotoEditRecipe.canHandle($0) }
        guard let data = try? await asset.requestContentEditingInput(with: options).adjustmentData else { return nil }
        return PhotoEditRecipe(adjustmentData: data)
    }

    /// Polls the library (what the gallery did must be in it, not only on screen), for a minute at most (a bound for
    /// what never happens, not a speed the machine must have).
    func eventually(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("timed out waiting for \(what)")
    }

    func run(_ browser: WebDriver, url: String, token: String, library: TestLibrary, live: String, ids: [String]) async throws {
        let shots = Self.screenshots
        // Newest first: the Live Photo (2030) on top, then the generated photos from the newest; the oldest last.
        let next = ids.last!
        // Sign in.
        try await browser.open(url)
        try await browser.signIn(token: token)
        try await browser.wait(20, "the timeline", until: "return document.body.dataset.ready === 'true' && document.body.dataset.feed === 'open'")
        try await browser.wait(
            10, "thumbnails", until: "return [...document.querySelectorAll('.tile img')].some(i => i.complete && i.naturalWidth > 0)")
        try await browser.screenshot(shots.appendingPathComponent("1-timeline.png"))

        // Virtualized: only what is near the screen is in the page; scrolling swaps tiles.
        let tiles = try await browser.run("return document.querySelectorAll('.tile').length") as? Int ?? 0
        #expect(tiles > 0 && tiles < 301, "\(tiles) tiles in the page for 301 assets")
        #expect(try await browser.run("return document.querySelectorAll('.header').length") as? Int ?? 0 > 1, "date headers")
        try await browser.run("window.scrollTo(0, document.body.scrollHeight)")
        let last = ids.first!.replacingOccurrences(of: "/", with: "_")
        try await browser.wait(10, "the oldest photo after scrolling", until: "return !!document.querySelector('.tile[data-key=\"\(last)\"]')")
        let first = live.replacingOccurrences(of: "/", with: "_")
        #expect(try await browser.run("return !!document.querySelector('.tile[data-key=\"\(first)\"]')") as? Bool == false)
        try await browser.screenshot(shots.appendingPathComponent("2-scrolled.png"))
        try await browser.run("window.scrollTo(0, 0)")
        try await browser.wait(10, "the first tile again", until: "return !!document.querySelector('.tile[data-key=\"\(first)\"]')")

        // The viewer: the Live Photo plays on hover.
        try await browser.click(".tile[data-key=\"\(first)\"]")
        try await browser.wait(
            10, "the photo in the viewer", until: "const i = document.querySelector('#stage img'); return !!i && i.complete && i.naturalWidth > 0")
        try await browser.run("document.querySelector('#stage img').dispatchEvent(new PointerEvent('pointerenter'))")
        try await browser.wait(
            10, "the Live Photo's video to play",
            until: "const v = document.querySelector('.live-video'); return !!v && !v.hidden && v.currentTime > 0")
        try await browser.screenshot(shots.appendingPathComponent("3-live-photo.png"))

        // Favourite with the keyboard; the feed brings the change back to the button.
        try await browser.press("\u{E014}")  // right arrow: the next photo
        try await browser.wait(
            10, "the next photo",
            until: "return document.querySelector('#stage img')?.src.includes('\(next.replacingOccurrences(of: "/", with: "_"))')")
        try await browser.press("f")
        try await eventually("the favourite in the library") { asset(next, library)?.isFavorite == true }
        try await browser.wait(
            10, "the favourite button", until: "return document.querySelector('[data-viewer=favorite]').getAttribute('aria-pressed') === 'true'")

        // Edit with a look, save, then revert.
        try await browser.click("[data-viewer=edit]")
        try await browser.wait(10, "the editor", until: "return !document.querySelector('#editor').hidden")
        try await browser.run(
            "const s = document.querySelector('#editor select[name=look]'); s.value = 'mono'; s.dispatchEvent(new Event('input', {bubbles: true}))")
        try await browser.wait(10, "the preview", until: "return document.querySelector('#stage img').src.startsWith('blob:')")
        try await browser.screenshot(shots.appendingPathComponent("4-editing.png"))
        try await browser.click("#editor button[type=submit]")
        try await eventually("the edit in the library") { asset(next, library)?.hasAdjustments == true }
        try await browser.wait(10, "the editor to close", until: "return document.querySelector('#editor').hidden")
        try await browser.wait(10, "the edited asset in the page", until: "return document.querySelector('#stage img').src.includes('&v=')")
        try await browser.click("[data-viewer=edit]")
        try await browser.wait(
            10, "the editor with the saved look", until: "return document.querySelector('#editor select[name=look]').value === 'mono'")
        try await browser.click("[data-edit=revert]")
        try await eventually("the revert in the library") { asset(next, library)?.hasAdjustments == false }

        // Crop with the handles: the bottom edge dragged up a quarter with the mouse, the left edge moved half-way with
        // Shift and the right arrow; the saved photo is that part of the original, and the crop survives reopening.
        let (width, height) = try #require(asset(next, library).map { ($0.pixelWidth, $0.pixelHeight) })
        try await browser.wait(10, "the photo after the revert", until: "return !document.querySelector('#stage img')?.src.startsWith('blob:')")
        try await browser.click("[data-viewer=edit]")
        try await browser.wait(10, "the editor", until: "return !document.querySelector('#editor').hidden")
        try await browser.click("[data-edit=crop]")
        try await browser.wait(
            10, "the crop box over the uncropped preview",
            until:
                "const i = document.querySelector('#stage img'); return !!document.querySelector('#crop-box') && i.src.startsWith('blob:') && i.complete"
        )
        let shown = try #require(try await browser.run("return document.querySelector('#stage img').getBoundingClientRect().height") as? Double)
        try await browser.drag("[data-handle=s]", by: 0, -Int((shown / 4).rounded()))
        try await browser.run("document.querySelector('[data-handle=w]').focus()")
        for _ in 0..<5 { try await browser.press("\u{E008}\u{E014}") }  // Shift + right arrow: a tenth each
        try await browser.screenshot(shots.appendingPathComponent("4b-cropping.png"))
        try await browser.click("[data-edit=crop]")
        #expect(try await browser.run("return !!document.querySelector('#crop-box')") as? Bool == false)
        try await browser.click("#editor button[type=submit]")
        try await eventually("the crop in the library") { asset(next, library)?.hasAdjustments == true }
        let cropped = try #require(asset(next, library))
        #expect(cropped.pixelWidth == width / 2, "\(cropped.pixelWidth) of \(width)")
        #expect(abs(cropped.pixelHeight - height * 3 / 4) <= 1, "\(cropped.pixelHeight) of \(height)")
        let crop = try #require(await recipe(next, library)?.steps.first)
        guard case .crop(let x, let y, let w, let h) = crop else { throw WebDriverError(message: "no crop in the recipe: \(crop)") }
        #expect((x, y, w) == (0.5, 0, 0.5) && abs(h - 0.75) <= 1 / shown, "\(crop)")
        // Reopened, the crop is part of the recipe: a change of exposure keeps it.
        try await browser.wait(10, "the cropped asset in the page", until: "return document.querySelector('#stage img').src.includes('&v=')")
        try await browser.click("[data-viewer=edit]")
        try await browser.wait(10, "the editor", until: "return !document.querySelector('#editor').hidden")
        try await browser.run(
            "const e = document.querySelector('#editor input[name=exposure]'); e.value = '0.5'; e.dispatchEvent(new Event('input', {bubbles: true}))")
        try await browser.click("#editor button[type=submit]")
        var reopened: PhotoEditRecipe?
        for _ in 0..<200 where reopened?.steps.count != 2 {
            try await Task.sleep(for: .milliseconds(50))
            reopened = await recipe(next, library)
        }
        #expect(reopened?.steps == [crop, .exposure(ev: 0.5)], "\(String(describing: reopened))")
        #expect(asset(next, library).map { ($0.pixelWidth, $0.pixelHeight) } ?? (0, 0) == (cropped.pixelWidth, cropped.pixelHeight))
        try await browser.press("\u{E00C}")  // Escape closes the viewer

        // Upload through the file input (as a drop does): per-file progress, then the summary.
        let upload = try library.makeImage("upload.jpg", width: 80, height: 60)
        let before = PHAsset.fetchAssets(with: library.options()).count
        try await browser.type(upload.path, into: "#upload-input")
        try await browser.wait(
            30, "the upload", until: "return document.querySelector('#upload-summary')?.textContent.startsWith('1 added') === true")
        #expect(PHAsset.fetchAssets(with: library.options()).count == before + 1)
        try await browser.screenshot(shots.appendingPathComponent("5-uploaded.png"))

        // Another client favourites a photo on screen: its tile shows the heart without a reload.
        let other = try PHPhotoLibrary(url: library.url, clientIdentifier: nil)
        let options = PHFetchOptions()
        options.photoLibrary = other
        let second = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [ids[ids.count - 2]], options: options).firstObject)
        try other.performChangesAndWait { PHAssetChangeRequest(for: second).isFavorite = true }
        let key = ids[ids.count - 2].replacingOccurrences(of: "/", with: "_")
        try await browser.wait(10, "the other client's favourite", until: "return !!document.querySelector('.tile[data-key=\"\(key)\"] .heart')")
        try await browser.screenshot(shots.appendingPathComponent("6-live-update.png"))
    }
}

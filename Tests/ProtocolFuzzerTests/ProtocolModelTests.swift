import Foundation
import ProtocolFuzzer
import WaylandProtocolModel
import Testing

@Suite struct ProtocolModelTests {
    @Test func anInterfaceIsReadWithItsMessagesArgumentsAndEnums() throws {
        let xml = """
            <protocol name="test">
              <interface name="test_pool" version="3">
                <description summary="ignored">text</description>
                <request name="destroy" type="destructor"/>
                <request name="create_buffer" since="2">
                  <arg name="id" type="new_id" interface="wl_buffer"/>
                  <arg name="offset" type="int" summary="ignored"/>
                  <arg name="format" type="uint" enum="wl_shm.format"/>
                  <arg name="parent" type="object" interface="wl_surface" allow-null="true"/>
                  <arg name="title" type="string"/>
                  <arg name="scale" type="fixed"/>
                  <arg name="states" type="array"/>
                  <arg name="fd" type="fd"/>
                </request>
                <event name="done">
                  <arg name="bound" type="new_id"/>
                </event>
                <enum name="mode" bitfield="true">
                  <entry name="none" value="0"/>
                  <entry name="wide" value="0x10" since="3"/>
                </enum>
              </interface>
            </protocol>
            """
        let interfaces = try ProtocolModel.parse(data: Data(xml.utf8))
        #expect(interfaces == [
            Interface(
                name: "test_pool", version: 3,
                requests: [
                    Message(name: "destroy", isDestructor: true),
                    Message(name: "create_buffer", since: 2, arguments: [
                        Argument(name: "id", kind: .newID, interface: "wl_buffer"),
                        Argument(name: "offset", kind: .int),
                        Argument(name: "format", kind: .uint, enumeration: "wl_shm.format"),
                        Argument(name: "parent", kind: .object, interface: "wl_surface", allowNull: true),
                        Argument(name: "title", kind: .string),
                        Argument(name: "scale", kind: .fixed),
                        Argument(name: "states", kind: .array),
                        Argument(name: "fd", kind: .fd),
                    ]),
                ],
                events: [Message(name: "done", arguments: [Argument(name: "bound", kind: .newID)])],
                enums: ["mode": WaylandEnum(name: "mode", isBitfield: true, entries: [.init(name: "none", value: 0), .init(name: "wide", value: 16, since: 3)])]),
        ])
    }

    @Test func anArgumentOfUnknownTypeIsAnError() {
        let xml = #"<protocol><interface name="x" version="1"><request name="r"><arg name="a" type="float"/></request></interface></protocol>"#
        #expect(throws: ProtocolModelError.malformed("<data>", "an argument without name or known type in r")) {
            try ProtocolModel.parse(data: Data(xml.utf8))
        }
    }

    @Test func theInstalledProtocolsHoldTheCoreAndTheStableXdgShell() throws {
        let model = try ProtocolModel.installed()
        let registry = try #require(model["wl_registry"])
        // wl_registry.bind's new_id names no interface: it travels as name, version and id.
        #expect(registry.requests.map(\.name) == ["bind"])
        #expect(registry.requests[0].arguments == [Argument(name: "name", kind: .uint), Argument(name: "id", kind: .newID)])
        // xdg-shell's stable xdg_surface, not the older unstable v5 one of the same name.
        let xdgSurface = try #require(model["xdg_surface"])
        #expect(xdgSurface.requests.map(\.name) == ["destroy", "get_toplevel", "get_popup", "set_window_geometry", "ack_configure"])
        let shm = try #require(model["wl_shm"])
        let format = try #require(model.enumeration("wl_shm.format", in: shm))
        #expect(format.entries.prefix(3) == [.init(name: "argb8888", value: 0), .init(name: "xrgb8888", value: 1), .init(name: "c8", value: 0x2020_3843)])
        #expect(model.enumeration("format", in: shm) == format)
    }

    @Test func reachableInterfacesFollowNewIDsAndArgumentsNameWhatRequestsTake() throws {
        let model = try ProtocolModel.installed()
        #expect(model.reachable(from: "wl_compositor") == ["wl_compositor", "wl_surface", "wl_region", "wl_callback"])
        #expect(model.arguments(of: ["wl_subcompositor"]) == ["wl_surface"])
    }

    /// What the goal planner reads from the model: which requests make an object, which give a
    /// surface its role, and which interfaces belong to a surface.
    @Test func makersRolesAndSurfaceBoundInterfacesComeFromTheXML() throws {
        let model = try ProtocolModel.installed()
        // Unstable xdg-shell v5's xdg_shell makes the stable xdg_popup by name too; no compositor
        // announces it, so the planner never takes that way.
        #expect(model.makers(of: "xdg_popup").map { "\($0.interface).\(model[$0.interface]!.requests[$0.opcode].name)" }
            == ["xdg_shell.get_xdg_popup", "xdg_surface.get_popup"])
        #expect(model.makers(of: "wl_buffer").map { "\($0.interface).\(model[$0.interface]!.requests[$0.opcode].name)" }.sorted() == [
            "wl_shm_pool.create_buffer", "wp_single_pixel_buffer_manager_v1.create_u32_rgba_buffer",
            "zwp_linux_buffer_params_v1.create_immed",
        ])
        #expect(["xdg_wm_base", "wl_subcompositor", "wl_pointer", "wl_data_device"].allSatisfy(model.givesRoles))
        #expect(!["wp_viewporter", "wl_compositor", "xdg_surface"].contains(where: model.givesRoles))
        #expect(["wl_surface", "xdg_surface", "xdg_toplevel", "xdg_popup", "wl_subsurface", "wp_viewport"].allSatisfy(model.surfaceBound.contains))
        #expect(!["xdg_positioner", "wl_buffer", "wl_region", "wl_seat", "wl_pointer"].contains(where: model.surfaceBound.contains))
    }
}

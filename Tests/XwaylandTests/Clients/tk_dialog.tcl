# A Tk app for XwaylandTests: a blue main window and, once it is shown, a red 200×100 dialog
# transient for it (WM_TRANSIENT_FOR).
wm title . "vitrine-tk-main"
. configure -background blue -width 300 -height 200
bind . <Map> {
    bind . <Map> {}
    after 300 {
        toplevel .dialog -background red -width 200 -height 100
        wm title .dialog "vitrine-tk-dialog"
        wm transient .dialog .
    }
}

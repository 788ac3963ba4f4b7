# A Tk app for XwaylandTests: a menu button whose drop-down Tk places itself (an
# override-redirect window), and a button. It prints where Tk put things, in root coordinates, and
# what was chosen or pressed.
wm title . "vitrine-tk"
. configure -background "#d9d9d9"
menubutton .file -text "File" -menu .file.menu -relief raised -font {DejaVuSans 14}
menu .file.menu -tearoff 0 -font {DejaVuSans 14}
.file.menu add command -label "Open" -command { puts "chose Open"; flush stdout }
.file.menu add command -label "Quit" -command { puts "chose Quit"; flush stdout }
button .press -text "Press me" -font {DejaVuSans 14} -command { puts "pressed"; flush stdout }
place .file -x 40 -y 30
place .press -x 40 -y 200

proc report {name widget} {
    puts "$name at [winfo rootx $widget] [winfo rooty $widget] [winfo width $widget] [winfo height $widget]"
    flush stdout
}
bind .press <Map> { after 200 { report file .file; report press .press } }
bind .file.menu <Map> { after 200 { report menu .file.menu } }

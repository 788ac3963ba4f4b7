# A Tk app for XwaylandTests whose minimum size (1280x720) is larger than the test's output: a
# menu button whose drop-down Tk places itself (an override-redirect window), and a button. It
# prints where Tk put things, in root coordinates, and what was chosen or pressed.
wm title . "vitrine-tk-large"
wm minsize . 1280 720
. configure -background "#d9d9d9"
menubutton .file -text "File" -menu .file.menu -relief raised -font {DejaVuSans 28}
menu .file.menu -tearoff 0 -font {DejaVuSans 28}
.file.menu add command -label "Open" -command { puts "chose Open"; flush stdout }
.file.menu add command -label "Quit" -command { puts "chose Quit"; flush stdout }
button .press -text "Press me" -font {DejaVuSans 28} -command { puts "pressed"; flush stdout }
frame .corner -background "#2060c0" -width 200 -height 100
place .file -x 80 -y 60
place .press -x 520 -y 400
place .corner -x 1080 -y 620

proc report {name widget} {
    puts "$name at [winfo rootx $widget] [winfo rooty $widget] [winfo width $widget] [winfo height $widget]"
    flush stdout
}
bind .press <Map> { after 200 { report file .file; report press .press; report window . } }
bind .file.menu <Map> { after 200 { report menu .file.menu } }

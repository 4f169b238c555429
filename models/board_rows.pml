/* Two users, each owning a row of a 2 x 3 board (a typedef of arrays): a user fills its
   row cell by cell and clears it once the other row has caught up. */
typedef row { byte c[3] };
row board[2];
active [2] proctype user() {
  byte j;
end:
  do
  :: j < 3 && board[1 - _pid].c[j] <= board[_pid].c[j] -> board[_pid].c[j] = 1; j++
  :: j == 3 -> j = 0; board[_pid].c[0] = 0; board[_pid].c[1] = 0; board[_pid].c[2] = 0
  od
}

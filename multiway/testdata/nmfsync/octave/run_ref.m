% run_ref(DIR): runs the authors' nmfSync as the CLEAR paper's harness calls
% it, nmfSync(W, dimVector, m) (dense eig, theta 0), on every DIR/pNN.txt
% (clearmatch's problem text format, with a "# universe m" comment), and
% writes each observation's item (0-based column of U) to DIR/pNN.ref.
% W is the symmetric association matrix with identity diagonal blocks.
function run_ref(dir)
  s = dir_list(dir);
  for f = 1:numel(s)
    [W, dims, m] = read_problem(s{f});
    rand('seed', 1); rand('state', 1); % the auction's dummy rows
    [~, U] = nmfSync(full(W), dims, m);
    [r, c] = find(U);
    lab = zeros(size(W, 1), 1); lab(r) = c - 1;
    out = [s{f}(1:end-4) '.ref'];
    fid = fopen(out, 'w'); fprintf(fid, '%d\n', lab); fclose(fid);
    printf('%s: %d observations, universe %d, %d items\n', out, size(W, 1), m, size(U, 2));
  end
end
